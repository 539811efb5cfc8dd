//! What a sandboxed run costs: a fresh QuickJS runtime and context per call (nothing a script
//! does outlives it), a trivial script, a script calling a helper 1,000 times, and a
//! CPU-bound loop. Run: `cargo bench -p arbor-js --bench sandbox`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use arbor_js::{run, GrepHit, Helper, Host, HostError, Limits, Script};
use criterion::Criterion;
use serde_json::json;

struct Fixed;

impl Host for Fixed {
    fn read(&self, _path: &str) -> Result<String, HostError> {
        Ok("alpha beta gamma\n".into())
    }
    fn write(&self, _path: &str, _content: &str) -> Result<(), HostError> {
        Ok(())
    }
    fn ls(&self, _path: &str) -> Result<Vec<String>, HostError> {
        Ok(vec!["a".into()])
    }
    fn grep(&self, _pattern: &str, _path: Option<&str>) -> Result<Vec<GrepHit>, HostError> {
        Ok(Vec::new())
    }
    fn find(&self, _pattern: &str) -> Result<Vec<String>, HostError> {
        Ok(Vec::new())
    }
}

fn bench(c: &mut Criterion, name: &str, code: &str) {
    let allowed: BTreeSet<Helper> = Helper::ALL.into_iter().collect();
    let limits = Limits::default();
    let args = json!({});
    let host: Arc<dyn Host> = Arc::new(Fixed);
    c.bench_function(name, |b| {
        b.iter(|| {
            run(Script {
                code,
                args: &args,
                host: host.clone(),
                allowed: &allowed,
                limits: &limits,
                abort: Arc::default(),
            })
            .unwrap()
        })
    });
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    bench(&mut c, "js_return_42", "return 42;");
    bench(
        &mut c,
        "js_1000_helper_calls",
        "let n = 0; for (let i = 0; i < 1000; i++) n += (await read('a')).length; return n;",
    );
    bench(
        &mut c,
        "js_cpu_loop_1e6",
        "let s = 0; for (let i = 0; i < 1e6; i++) s += i % 7; return s;",
    );
    c.final_summary();
}
