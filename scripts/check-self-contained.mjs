// Fails when a file of the repository reaches outside the repository's root for its data:
// a relative path whose `../` steps climb above the root, or a reference to the team's `shared/`
// folder beside the checkout. A clone with nothing beside it must test itself.
//
// Relative paths are resolved from where they are used: in Rust, from the crate's manifest
// folder (`CARGO_MANIFEST_DIR`, the nearest folder with a Cargo.toml) except `#[path]` and
// `include_str!`/`include_bytes!`, which are relative to the file; elsewhere, from the
// file's own folder. Test data (tests/fixtures/) and Markdown are not scanned.
//
// Usage: node scripts/check-self-contained.mjs [ROOT]   (default: the repository of this script)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(
  process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
);
const scanned = /\.(rs|ts|js|mjs|cjs|svelte|sh|json|toml|yml|yaml)$|^\.ci\/run$/;
const skipped = /^(tests\/fixtures\/|node_modules\/|ui\/dist\/|test-artifacts\/)/;

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && scanned.test(f) && !skipped.test(f) && existsSync(path.join(root, f)));

/** The folder a relative path in `file` is resolved from. */
function baseOf(file) {
  let dir = path.dirname(file);
  if (!file.endsWith('.rs')) return dir;
  while (dir !== '.' && !existsSync(path.join(root, dir, 'Cargo.toml'))) dir = path.dirname(dir);
  return dir;
}

const problems = [];
for (const file of files) {
  const text = readFileSync(path.join(root, file), 'utf8');
  const manifestBase = baseOf(file);
  text.split('\n').forEach((line, index) => {
    // Rust resolves `#[path = …]` and `include_str!`/`include_bytes!` from the file's own folder.
    const base = /#\[path\s*=|include_(?:str|bytes)!/.test(line)
      ? path.dirname(file)
      : manifestBase;
    const where = `${file}:${index + 1}`;
    if (/(^|[^\w.])\.\.\/shared\b|shared\/fixtures/.test(line)) {
      problems.push(`${where}: refers to the shared/ folder beside the repository: ${line.trim()}`);
      return;
    }
    for (const match of line.matchAll(/(?:\.\.\/)+[\w.\-/]*/g)) {
      const resolved = path.normalize(path.join(base, match[0]));
      if (resolved === '..' || resolved.startsWith('../')) {
        problems.push(`${where}: ${match[0]} climbs above the repository root (from ${base}/)`);
      }
    }
  });
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(
    `\n${problems.length} reference(s) outside the repository: keep test data inside it (tests/fixtures/).`,
  );
  process.exit(1);
}
console.log(`self-contained: ${files.length} files checked, nothing reaches outside ${root}`);
