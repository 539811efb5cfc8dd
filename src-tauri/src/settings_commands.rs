//! Tauri commands of the settings view: provider keys (kept in the OS keychain by the session
//! API; a key crosses the IPC bridge once, from the field the user typed it in, and is never
//! sent back), the defaults and the tool-environment pass-through list, custom endpoints.

use arbor_app::custom_endpoints::CustomEndpoint;
use arbor_app::{blocking, check_key, KeyCheck, KeyStatusList, Settings};
use tauri::State;

use crate::error::CommandError;
use crate::state::DesktopState;

type Result<T> = std::result::Result<T, CommandError>;

/// Where every provider's key comes from (the keychain is read again).
#[tauri::command]
pub async fn key_statuses(state: State<'_, DesktopState>) -> Result<KeyStatusList> {
    let arbor = state.app()?;
    Ok(blocking(move || arbor.key_statuses()).await?)
}

/// Keeps `key` for `provider` in the OS keychain (or, with `run_only`, in memory until the app
/// exits: the offer made when no keychain is reachable). Open chats pick the key up at once.
#[tauri::command]
pub async fn set_api_key(
    state: State<'_, DesktopState>,
    provider: String,
    key: String,
    run_only: bool,
) -> Result<KeyStatusList> {
    let arbor = state.app()?;
    let app = arbor.clone();
    blocking(move || app.set_key(&provider, &key, run_only)).await??;
    refresh_sessions(&state).await?;
    Ok(blocking(move || arbor.key_statuses()).await?)
}

/// Removes `provider`'s key from the keychain (and memory).
#[tauri::command]
pub async fn remove_api_key(
    state: State<'_, DesktopState>,
    provider: String,
) -> Result<KeyStatusList> {
    let arbor = state.app()?;
    let app = arbor.clone();
    blocking(move || app.remove_key(&provider)).await??;
    refresh_sessions(&state).await?;
    Ok(blocking(move || arbor.key_statuses()).await?)
}

/// One cheap request with `provider`'s key: whether it works, and the error class if not.
#[tauri::command]
pub async fn test_api_key(state: State<'_, DesktopState>, provider: String) -> Result<KeyCheck> {
    let arbor = state.app()?;
    let selection = blocking(move || arbor.key_check_selection(&provider)).await??;
    Ok(check_key(&selection).await)
}

#[tauri::command]
pub async fn get_settings(state: State<'_, DesktopState>) -> Result<Settings> {
    Ok(state.app()?.settings())
}

/// Checks and saves the settings; new sessions use them.
#[tauri::command]
pub async fn save_settings(state: State<'_, DesktopState>, settings: Settings) -> Result<Settings> {
    let arbor = state.app()?;
    Ok(blocking(move || {
        arbor.save_settings(settings)?;
        Ok::<_, arbor_app::AppError>(arbor.settings())
    })
    .await??)
}

/// Adds a custom endpoint to `models.json` (checked first) and its key, if any, to the keychain.
#[tauri::command]
pub async fn add_custom_endpoint(
    state: State<'_, DesktopState>,
    endpoint: CustomEndpoint,
    key: Option<String>,
) -> Result<KeyStatusList> {
    let arbor = state.app()?;
    Ok(blocking(move || {
        arbor.add_custom_endpoint(&endpoint, key.as_deref())?;
        Ok::<_, arbor_app::AppError>(arbor.key_statuses())
    })
    .await??)
}

/// Every open chat reads its model's key again.
async fn refresh_sessions(state: &State<'_, DesktopState>) -> Result<()> {
    let arbor = state.app()?;
    let sessions: Vec<_> = state
        .windows()
        .values()
        .filter_map(|window| window.session.clone())
        .collect();
    for session in sessions {
        let arbor = arbor.clone();
        let mut live = session.write_owned().await;
        blocking(move || live.refresh_key(arbor.keys())).await??;
    }
    Ok(())
}
