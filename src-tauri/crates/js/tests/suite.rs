//! The sandbox's contract and its attacks: each attack ends as an error naming what stopped it,
//! the host process stays up, and the next run works (a fresh engine every time).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbor_js::{run, GrepHit, Helper, Host, HostError, Limits, Outcome, SandboxError, Script};
use serde_json::{json, Value};

/// Files in memory; paths must not start with `/` or contain `..` (a stand-in for the real
/// workspace rules, which the coding crate tests).
#[derive(Default)]
struct MemoryHost {
    files: Mutex<BTreeMap<String, String>>,
}

impl MemoryHost {
    fn check(path: &str) -> Result<(), HostError> {
        if path.starts_with('/') || path.split('/').any(|part| part == "..") {
            return Err(HostError(format!("{path} is outside the workspace")));
        }
        Ok(())
    }
}

impl Host for MemoryHost {
    fn read(&self, path: &str) -> Result<String, HostError> {
        Self::check(path)?;
        self.files
            .lock()
            .unwrap()
            .get(path)
            .cloned()
            .ok_or_else(|| HostError(format!("{path}: no such file")))
    }
    fn write(&self, path: &str, content: &str) -> Result<(), HostError> {
        Self::check(path)?;
        self.files
            .lock()
            .unwrap()
            .insert(path.into(), content.into());
        Ok(())
    }
    fn ls(&self, _path: &str) -> Result<Vec<String>, HostError> {
        Ok(self.files.lock().unwrap().keys().cloned().collect())
    }
    fn grep(&self, pattern: &str, _path: Option<&str>) -> Result<Vec<GrepHit>, HostError> {
        let mut hits = Vec::new();
        for (path, text) in self.files.lock().unwrap().iter() {
            for (i, line) in text.lines().enumerate() {
                if line.contains(pattern) {
                    hits.push(GrepHit {
                        path: path.clone(),
                        line: i as u64 + 1,
                        text: line.into(),
                    });
                }
            }
        }
        Ok(hits)
    }
    fn find(&self, pattern: &str) -> Result<Vec<String>, HostError> {
        Ok(self
            .files
            .lock()
            .unwrap()
            .keys()
            .filter(|p| p.ends_with(pattern.trim_start_matches('*')))
            .cloned()
            .collect())
    }
}

struct Fixture {
    host: Arc<MemoryHost>,
    limits: Limits,
}

impl Fixture {
    fn new() -> Self {
        let host = Arc::new(MemoryHost::default());
        host.write("notes.txt", "alpha\nbeta gamma\n").unwrap();
        Self {
            host,
            limits: Limits {
                time: Duration::from_millis(700),
                ..Limits::default()
            },
        }
    }

    /// For tests about another limit: under a loaded machine (the whole workspace's tests run
    /// at once on two cores) the 700 ms clock could otherwise come first.
    fn without_clock() -> Self {
        let mut fx = Self::new();
        fx.limits.time = Duration::from_secs(120);
        fx
    }

    fn run_with(
        &self,
        code: &str,
        args: &Value,
        allowed: &[Helper],
        abort: Arc<AtomicBool>,
    ) -> Result<Outcome, SandboxError> {
        let allowed: BTreeSet<Helper> = allowed.iter().copied().collect();
        run(Script {
            code,
            args,
            host: self.host.clone(),
            allowed: &allowed,
            limits: &self.limits,
            abort,
        })
    }

    fn run(&self, code: &str) -> Result<Outcome, SandboxError> {
        self.run_with(code, &json!({}), &Helper::ALL, Arc::default())
    }

    /// After an attack: the next run works.
    fn still_works(&self) {
        let outcome = self
            .run("return (await read('notes.txt')).split('\\n')[0];")
            .unwrap();
        assert_eq!(outcome.result, "alpha");
    }
}

#[test]
fn the_contract_await_return_console_args_and_helpers() {
    let fx = Fixture::new();
    let outcome = fx.run("return 'plain text';").unwrap();
    assert_eq!(outcome.text(), "plain text");
    let outcome = fx
        .run("console.log('one', 2, {three: 3}); return {a: [1, 2]};")
        .unwrap();
    assert_eq!(outcome.console, "one 2 {\"three\":3}\n");
    assert_eq!(outcome.result, "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
    assert_eq!(
        outcome.text(),
        "one 2 {\"three\":3}\n{\n  \"a\": [\n    1,\n    2\n  ]\n}"
    );
    assert_eq!(
        fx.run("const x = 1;").unwrap().result,
        "",
        "undefined gives nothing"
    );
    assert_eq!(
        fx.run("return 1 // a comment on the last line")
            .unwrap()
            .result,
        "1"
    );

    let outcome = fx
        .run_with(
            "return args.name + '!';",
            &json!({"name": "arbor"}),
            &[],
            Arc::default(),
        )
        .unwrap();
    assert_eq!(outcome.result, "arbor!");

    let outcome = fx
        .run(
            "await write('out/new.txt', 'made\\n');
             const names = await ls('.');
             const hits = await grep('gamma');
             const found = await find('*.txt');
             return {names, hits, found, text: await read('out/new.txt')};",
        )
        .unwrap();
    let value: Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(value["names"], json!(["notes.txt", "out/new.txt"]));
    assert_eq!(
        value["hits"],
        json!([{"path": "notes.txt", "line": 2, "text": "beta gamma"}])
    );
    assert_eq!(value["found"], json!(["notes.txt", "out/new.txt"]));
    assert_eq!(value["text"], "made\n");

    // A helper's error is an exception the script can catch, or its result.
    let outcome = fx
        .run("try { await read('missing.txt'); } catch (e) { return 'caught: ' + e.message; }")
        .unwrap();
    assert_eq!(outcome.result, "caught: missing.txt: no such file");
    let error = fx.run("throw new TypeError('bad input');").unwrap_err();
    assert_eq!(error.code(), "script_error");
    assert!(
        error.to_string().contains("TypeError: bad input"),
        "{error}"
    );
    let error = fx
        .run("return await read('../../etc/passwd');")
        .unwrap_err();
    assert!(
        error.to_string().contains("outside the workspace"),
        "{error}"
    );
    let error = fx.run("this is not javascript").unwrap_err();
    assert_eq!(error.code(), "script_error");
}

#[test]
fn an_infinite_loop_stops_at_the_time_limit() {
    let fx = Fixture::new();
    let started = Instant::now();
    let error = fx.run("while (true) {}").unwrap_err();
    assert_eq!(error, SandboxError::Time(fx.limits.time));
    assert!(started.elapsed() < Duration::from_secs(5));
    // Caught or not, the interrupt cannot be swallowed.
    let error = fx
        .run("for (;;) { try { while (true) {} } catch (e) {} }")
        .unwrap_err();
    assert_eq!(error.code(), "time_limit");
    fx.still_works();
}

#[test]
fn runaway_promise_chains_and_microtasks_stop_at_the_time_limit() {
    let mut fx = Fixture::new();
    // A chain that keeps every promise alive grows about 90 MB/s here: with the default 64 MB
    // heap a quick moment filled it before the clock ran out (the engine then drops the
    // chain's jobs, and the run ends as a script error). This test is about the clock, so the
    // heap is made large enough never to come first.
    fx.limits.memory_bytes = 1024 * 1024 * 1024;
    for code in [
        "for (;;) { await null; }",
        "const loop = () => Promise.resolve().then(loop); loop(); await new Promise(() => {});",
        "const spin = async () => { for (;;) await 0; }; await Promise.all([spin(), spin()]);",
    ] {
        let error = fx.run(code).unwrap_err();
        assert_eq!(error.code(), "time_limit", "{code}: {error}");
        fx.still_works();
    }
    // A promise that can never settle ends at once, saying so.
    let error = fx.run("await new Promise(() => {});").unwrap_err();
    assert!(error.to_string().contains("never settled"), "{error}");
}

#[test]
fn a_huge_string_stops_at_the_memory_limit() {
    let fx = Fixture::without_clock();
    let error = fx
        .run("const s = 'x'.repeat(1024 * 1024 * 1024); return s.length;")
        .unwrap_err();
    assert_eq!(error.code(), "memory_limit", "{error}");
    let error = fx
        .run("const parts = []; for (;;) parts.push('y'.repeat(1 << 20) + parts.length);")
        .unwrap_err();
    assert_eq!(error.code(), "memory_limit", "{error}");
    fx.still_works();
}

#[test]
fn deep_recursion_stops_at_the_stack_limit() {
    let fx = Fixture::without_clock();
    let error = fx
        .run("const f = (n) => f(n + 1) + 1; return f(0);")
        .unwrap_err();
    assert_eq!(error.code(), "stack_limit", "{error}");
    fx.still_works();
}

#[test]
fn endless_output_stops_at_the_output_limit() {
    let fx = Fixture::without_clock();
    let error = fx
        .run("for (;;) console.log('z'.repeat(1000));")
        .unwrap_err();
    assert_eq!(error.code(), "output_limit", "{error}");
    let error = fx.run("return 'w'.repeat(10 * 1024 * 1024);").unwrap_err();
    assert_eq!(error.code(), "output_limit", "{error}");
    fx.still_works();
}

#[test]
fn no_network_processes_modules_or_environment() {
    let fx = Fixture::new();
    let outcome = fx
        .run(
            "return [typeof require, typeof fetch, typeof XMLHttpRequest, typeof Deno, \
             typeof process, typeof std, typeof os, typeof WebSocket, typeof __arbor_call, \
             typeof __arbor_print].join(',');",
        )
        .unwrap();
    assert_eq!(outcome.result, ["undefined"; 10].join(","));
    for code in [
        "return await import('fs');",
        "return await import('os');",
        "import fs from 'fs';",
        "return require('child_process');",
        "return await fetch('http://127.0.0.1/');",
    ] {
        let error = fx.run(code).unwrap_err();
        assert_eq!(error.code(), "script_error", "{code}: {error}");
    }
    fx.still_works();
}

#[test]
fn a_helper_not_granted_throws_naming_it() {
    let fx = Fixture::new();
    let error = fx
        .run_with(
            "await write('x.txt', 'no');",
            &json!({}),
            &[Helper::Read],
            Arc::default(),
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("`write` is not allowed"),
        "{error}"
    );
    assert!(fx.host.read("x.txt").is_err(), "nothing was written");
    let outcome = fx
        .run_with(
            "return await read('notes.txt');",
            &json!({}),
            &[Helper::Read],
            Arc::default(),
        )
        .unwrap();
    assert_eq!(outcome.result, "alpha\nbeta gamma\n");
}

#[test]
fn tampering_with_prototypes_or_helpers_does_not_outlive_the_run() {
    let fx = Fixture::new();
    let outcome = fx
        .run(
            "Object.prototype.polluted = 'yes';
             Array.prototype.map = null;
             JSON.parse = () => ({ok: 'forged'});
             try { globalThis.read = async () => 'forged'; } catch (e) {}
             try { Object.defineProperty(globalThis, 'read', {value: 1}); } catch (e) {}
             return await read('notes.txt');",
        )
        .unwrap();
    assert_eq!(
        outcome.result, "alpha\nbeta gamma\n",
        "the helpers cannot be replaced"
    );
    let outcome = fx
        .run("return [({}).polluted, typeof Array.prototype.map, JSON.parse('1')].join(',');")
        .unwrap();
    assert_eq!(outcome.result, ",function,1", "a later run starts clean");
    fx.still_works();
}

#[test]
fn abort_stops_a_running_script() {
    let fx = Fixture::new();
    let abort = Arc::new(AtomicBool::new(false));
    let flag = abort.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        flag.store(true, Ordering::Relaxed);
    });
    let limits = Limits {
        time: Duration::from_secs(30),
        ..Limits::default()
    };
    let allowed: BTreeSet<Helper> = Helper::ALL.into_iter().collect();
    let started = Instant::now();
    let error = run(Script {
        code: "while (true) {}",
        args: &json!({}),
        host: fx.host.clone(),
        allowed: &allowed,
        limits: &limits,
        abort,
    })
    .unwrap_err();
    stopper.join().unwrap();
    assert_eq!(error, SandboxError::Aborted);
    assert!(started.elapsed() < Duration::from_secs(5));
    fx.still_works();
}
