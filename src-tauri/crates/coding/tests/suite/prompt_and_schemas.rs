use arbor_coding::{
    build_system_prompt, builtin_tools, load_context_files, parse_tool_list, BuiltinToolOptions,
    BuiltinToolsError, SystemPromptOptions, Workspace, DEFAULT_TOOLS,
};

#[test]
fn tool_schemas() {
    let workspace = Workspace::new("/work");
    let tools = builtin_tools(&workspace, &BuiltinToolOptions::default()).unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.spec().name.as_str()).collect();
    // `create_tool` is built by a stored session (it needs the store), not here.
    let built: Vec<&str> = DEFAULT_TOOLS
        .iter()
        .copied()
        .filter(|name| *name != "create_tool")
        .collect();
    assert_eq!(names, built);
    for tool in &tools {
        insta::assert_json_snapshot!(format!("schema_{}", tool.spec().name), tool.spec());
    }
}

#[test]
fn tool_selection() {
    let workspace = Workspace::new("/work");
    let options = BuiltinToolOptions {
        names: parse_tool_list("read, grep,read"),
        accepts_images: false,
        ..BuiltinToolOptions::default()
    };
    let tools = builtin_tools(&workspace, &options).unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.spec().name.as_str()).collect();
    assert_eq!(names, ["read", "grep"]);
    let options = BuiltinToolOptions {
        names: vec!["read".into(), "rm".into()],
        accepts_images: false,
        ..BuiltinToolOptions::default()
    };
    let error = builtin_tools(&workspace, &options).err().unwrap();
    assert_eq!(error, BuiltinToolsError::UnknownTool { name: "rm".into() });
    assert_eq!(
        error.to_string(),
        "unknown tool `rm` (built-in tools: read, write, edit, bash, ls, grep, find, todo, js, create_tool)"
    );
}

#[test]
fn context_files_outermost_first_agents_before_claude() {
    let root = tempfile::tempdir().unwrap();
    let inner = root.path().join("repo/crate");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(root.path().join("AGENTS.md"), "outer rules\n").unwrap();
    std::fs::write(root.path().join("repo/CLAUDE.md"), "repo rules\n").unwrap();
    std::fs::write(inner.join("AGENTS.md"), "crate rules\n").unwrap();
    std::fs::write(inner.join("CLAUDE.md"), "ignored: AGENTS.md wins\n").unwrap();
    let files = load_context_files(&inner);
    let found: Vec<(String, &str)> = files
        .iter()
        .filter(|file| file.path.starts_with(root.path()))
        .map(|file| {
            (
                file.path
                    .strip_prefix(root.path())
                    .unwrap()
                    .display()
                    .to_string(),
                file.content.as_str(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("AGENTS.md".to_string(), "outer rules\n"),
            ("repo/CLAUDE.md".to_string(), "repo rules\n"),
            ("repo/crate/AGENTS.md".to_string(), "crate rules\n"),
        ]
    );

    let options = SystemPromptOptions {
        tools: DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect(),
        context_files: files
            .into_iter()
            .filter(|file| file.path.starts_with(root.path()))
            .collect(),
        date: "2026-05-01".into(),
        cwd: inner.clone(),
        ..SystemPromptOptions::default()
    };
    let prompt =
        build_system_prompt(&options).replace(&root.path().display().to_string(), "[ROOT]");
    insta::assert_snapshot!("prompt_default_with_context", prompt);
}

#[test]
fn custom_and_appended_prompts() {
    let options = SystemPromptOptions {
        tools: vec!["read".into(), "bash".into(), "my_skill".into()],
        custom_prompt: Some("You are a reviewer.".into()),
        append: Some("Always answer in French.".into()),
        date: "2026-05-01".into(),
        cwd: "/work/project".into(),
        ..SystemPromptOptions::default()
    };
    insta::assert_snapshot!("prompt_custom_appended", build_system_prompt(&options));
    let options = SystemPromptOptions {
        tools: vec!["read".into(), "bash".into(), "my_skill".into()],
        date: "2026-05-01".into(),
        cwd: "/work/project".into(),
        ..SystemPromptOptions::default()
    };
    insta::assert_snapshot!("prompt_some_tools", build_system_prompt(&options));
    let options = SystemPromptOptions {
        date: "2026-05-01".into(),
        cwd: "/work/project".into(),
        ..SystemPromptOptions::default()
    };
    insta::assert_snapshot!("prompt_no_tools", build_system_prompt(&options));
}
