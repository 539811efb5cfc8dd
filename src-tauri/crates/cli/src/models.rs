//! `arbor models`: the catalogue as a table.

use std::io::Write;

use arbor_app::catalog::Catalog;

pub fn print(
    catalog: &Catalog,
    provider: Option<&str>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let providers = match provider {
        Some(name) => vec![catalog.provider(name)?],
        None => catalog.providers().iter().collect(),
    };
    writeln!(
        out,
        "{:<12} {:<34} {:>9} {:>8} {:>9} {:>9}  FEATURES",
        "PROVIDER", "MODEL", "CONTEXT", "OUTPUT", "$IN/M", "$OUT/M"
    )?;
    for provider in providers {
        for model in &provider.models {
            let mut features = Vec::new();
            if model.reasoning {
                features.push("thinking");
            }
            if model.images {
                features.push("images");
            }
            writeln!(
                out,
                "{:<12} {:<34} {:>9} {:>8} {:>9.3} {:>9.3}  {}",
                provider.name,
                model.id,
                model.context_window,
                model.max_output_tokens,
                model.pricing.input,
                model.pricing.output,
                features.join(",")
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_one_provider_or_all() {
        let catalog = Catalog::builtin().unwrap();
        let mut out = Vec::new();
        print(&catalog, Some("anthropic"), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().next().unwrap().starts_with("PROVIDER"));
        assert!(text.contains("claude-sonnet-4-5"));
        assert!(text
            .lines()
            .skip(1)
            .all(|line| line.starts_with("anthropic ")));

        let mut all = Vec::new();
        print(&catalog, None, &mut all).unwrap();
        let all = String::from_utf8(all).unwrap();
        for provider in ["openai", "google", "groq", "ollama"] {
            assert!(
                all.lines().any(|line| line.starts_with(provider)),
                "{provider}"
            );
        }
        assert!(print(&catalog, Some("nope"), &mut Vec::new()).is_err());
    }
}
