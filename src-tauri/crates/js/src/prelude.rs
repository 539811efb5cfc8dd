//! The JavaScript around a script: the bound globals and the `async` function body whose
//! promise settles into `__arbor_settled`.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use rquickjs::{Ctx, Function};
use serde::Deserialize;

use crate::{answer, Helper, Host, HostError, Output};

/// Defines the globals from the two host functions and the arguments, then removes those: a
/// script sees only `args`, the helpers and `console`, each frozen and not redefinable. Every
/// helper is `async` and goes through one host call taking and answering JSON text, so no host
/// object (or prototype) is ever shared with the script.
pub(crate) const PRELUDE: &str = r#"
"use strict";
(function () {
  const call = globalThis.__arbor_call;
  const print = globalThis.__arbor_print;
  const argsJson = globalThis.__arbor_args_json;
  delete globalThis.__arbor_call;
  delete globalThis.__arbor_print;
  delete globalThis.__arbor_args_json;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const toText = String;
  const define = (name, value) =>
    Object.defineProperty(globalThis, name, {
      value,
      writable: false,
      configurable: false,
      enumerable: false,
    });
  const invoke = (name, params) => {
    const answer = parse(call(name, stringify(params)));
    if (answer.err !== undefined) throw new Error(answer.err);
    return answer.ok;
  };
  const helper = (name, params) =>
    Object.freeze(async function (...given) {
      return invoke(name, params(...given));
    });
  const optional = (value) => (value === undefined || value === null ? null : toText(value));
  define("args", parse(argsJson));
  define("read", helper("read", (path) => ({ path: toText(path) })));
  define(
    "write",
    helper("write", (path, content) => ({ path: toText(path), content: toText(content) })),
  );
  define("ls", helper("ls", (path) => ({ path: optional(path) ?? "." })));
  define(
    "grep",
    helper("grep", (pattern, path) => ({ pattern: toText(pattern), path: optional(path) })),
  );
  define("find", helper("find", (pattern) => ({ pattern: toText(pattern) })));
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return toText(value);
    try {
      const text = stringify(value);
      return text === undefined ? toText(value) : text;
    } catch (_) {
      return toText(value);
    }
  };
  const log = (...parts) => {
    print(parts.map(show).join(" "));
  };
  define("console", Object.freeze({ log, error: log, warn: log, info: log, debug: log }));
  define("__arbor_settle", (ok, value) => {
    let state;
    if (ok) {
      let text;
      if (typeof value === "string") text = value;
      else if (value === undefined) text = "";
      else {
        try {
          text = stringify(value, null, 2);
        } catch (_) {
          text = toText(value);
        }
        if (text === undefined) text = toText(value);
      }
      state = { state: "ok", text };
    } else {
      const message =
        value && value.stack ? toText(value) + "\n" + toText(value.stack) : toText(value);
      state = { state: "err", message };
    }
    globalThis.__arbor_settled = stringify(state);
  });
})();
"#;

/// The script as the body of an `async` function whose promise settles into the result.
pub(crate) fn wrap(code: &str) -> String {
    // The newline before `}` ends a last line that is a `//` comment.
    format!(
        "(async () => {{\n{code}\n}})().then((v) => __arbor_settle(true, v), (e) => __arbor_settle(false, e));"
    )
}

#[derive(Deserialize)]
struct PathParams {
    path: String,
}

#[derive(Deserialize)]
struct WriteParams {
    path: String,
    content: String,
}

#[derive(Deserialize)]
struct GrepParams {
    pattern: String,
    path: Option<String>,
}

#[derive(Deserialize)]
struct FindParams {
    pattern: String,
}

/// Binds `__arbor_call(name, paramsJson) -> answerJson` and `__arbor_print(line)`.
pub(crate) fn bind<'js>(
    ctx: &Ctx<'js>,
    host: Arc<dyn Host>,
    allowed: &BTreeSet<Helper>,
    output: Arc<Mutex<Output>>,
) -> rquickjs::Result<()> {
    let allowed = allowed.clone();
    let call = Function::new(ctx.clone(), move |name: String, params: String| -> String {
        dispatch(host.as_ref(), &allowed, &name, &params)
    })?;
    let print = Function::new(ctx.clone(), move |line: String| {
        if let Ok(mut output) = output.lock() {
            output.push_line(&line);
        }
    })?;
    ctx.globals().set("__arbor_call", call)?;
    ctx.globals().set("__arbor_print", print)?;
    Ok(())
}

fn dispatch(host: &dyn Host, allowed: &BTreeSet<Helper>, name: &str, params: &str) -> String {
    let Some(helper) = Helper::parse(name) else {
        return answer::<()>(Err(HostError(format!("there is no helper `{name}`"))));
    };
    if !allowed.contains(&helper) {
        return answer::<()>(Err(HostError(format!(
            "`{name}` is not allowed here: this tool's allowed-tools do not list it"
        ))));
    }
    let bad = |e: serde_json::Error| HostError(format!("{name}: bad arguments: {e}"));
    match helper {
        Helper::Read => answer(
            serde_json::from_str::<PathParams>(params)
                .map_err(bad)
                .and_then(|p| host.read(&p.path)),
        ),
        Helper::Write => answer(
            serde_json::from_str::<WriteParams>(params)
                .map_err(bad)
                .and_then(|p| host.write(&p.path, &p.content)),
        ),
        Helper::Ls => answer(
            serde_json::from_str::<PathParams>(params)
                .map_err(bad)
                .and_then(|p| host.ls(&p.path)),
        ),
        Helper::Grep => answer(
            serde_json::from_str::<GrepParams>(params)
                .map_err(bad)
                .and_then(|p| host.grep(&p.pattern, p.path.as_deref())),
        ),
        Helper::Find => answer(
            serde_json::from_str::<FindParams>(params)
                .map_err(bad)
                .and_then(|p| host.find(&p.pattern)),
        ),
    }
}
