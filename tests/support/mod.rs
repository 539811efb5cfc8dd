//! Helpers shared by the end-to-end suites: a display, the WebDriver proxy, screenshots.

pub mod desktop;
pub mod generated;
pub mod image;
pub mod process;
pub mod ui;
