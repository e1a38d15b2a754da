#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cli-speedscope.sh — --format speedscope, without root or BPF: a
# synthetic stream (tests/mkstream) whose hot_c runs in a second thread
# "worker" gives a file that validates against speedscope's own published
# schema (file-format-schema.json of the npm package speedscope, checked
# with ajv) and that speedscope's own importer opens: its release bundle
# in headless Chromium, handed the file as `speedscope FILE` hands it
# (loadFileFromBase64), lists the process and its two threads as three
# profiles with their weights (100, 80 and 20 ms at 1000 Hz) and takes
# the file's name as the page's title.
# The npm packages (speedscope 1.25.0, ajv 8.17.1) are installed by this
# test into tests/npm-cache/ under the build directory, never into the
# source tree; without node, npm, the registry or chromium it skips,
# saying why.
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
mk="$top_builddir/tests/mkstream"
[ -x "$mk" ] || fail "tests/mkstream not built"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$mk" "$T/s.kps" 50 30 20 threads || fail "mkstream failed"
"$KPTOP" --batch -i "$T/s.kps" --format speedscope -o "$T/s.json" 2>"$T/err" ||
	fail "exit $?: $(cat "$T/err")"
grep -q '"name": "synth (pid 4242) thread 4243 worker"' "$T/s.json" ||
	fail "no profile of the thread worker: $(head -c 600 "$T/s.json")"

command -v node >/dev/null 2>&1 || skip "node is not installed (Debian packages nodejs npm)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (Debian package npm)"
NPM="$top_builddir/tests/npm-cache"
if [ ! -f "$NPM/node_modules/speedscope/package.json" ] ||
   [ ! -f "$NPM/node_modules/ajv/package.json" ]; then
	mkdir -p "$NPM" || fail "mkdir $NPM"
	timeout 300 npm install --prefix "$NPM" --no-audit --no-fund --no-save \
		--loglevel=error speedscope@1.25.0 ajv@8.17.1 >"$T/npm.log" 2>&1 ||
		skip "npm could not install speedscope and ajv (is the registry reachable?): $(tail -1 "$T/npm.log")"
fi
REL="$NPM/node_modules/speedscope/dist/release"

# The schema, with ajv; and what the importer would refuse (samples and
# weights of different lengths, a frame index out of range).
node - "$NPM" "$T/s.json" <<'EOF' >"$T/valid" 2>&1 || fail "not valid: $(cat "$T/valid")"
const [npm, file] = process.argv.slice(2);
const Ajv = require(npm + "/node_modules/ajv");
const schema = require(npm + "/node_modules/speedscope/dist/release/file-format-schema.json");
const data = JSON.parse(require("fs").readFileSync(file, "utf8"));
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
if (!validate(data)) { console.log(JSON.stringify(validate.errors)); process.exit(1); }
for (const p of data.profiles) {
	if (p.samples.length !== p.weights.length) { console.log(p.name + ": lengths"); process.exit(1); }
	for (const s of p.samples) for (const i of s)
		if (!(i >= 0 && i < data.shared.frames.length)) { console.log(p.name + ": frame " + i); process.exit(1); }
}
console.log(data.profiles.map(p => p.name).join("|"));
EOF
grep -qx 'synth (pid 4242)|synth (pid 4242) thread 4242 synth|synth (pid 4242) thread 4243 worker' "$T/valid" ||
	fail "profiles: $(cat "$T/valid")"

# speedscope's importer: its page loads the file from a script, as its
# command-line tool does.
command -v chromium >/dev/null 2>&1 || skip "chromium is not installed (Debian package chromium)"
printf 'speedscope.loadFileFromBase64("s.json", "%s")\n' "$(base64 -w0 "$T/s.json")" >"$T/s.js"
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$T/chrome" --allow-file-access-from-files \
	--virtual-time-budget=10000 --dump-dom \
	"file://$REL/index.html#localProfilePath=$T/s.js" >"$T/dom.html" 2>"$T/chrome.log"
[ -s "$T/dom.html" ] || fail "chromium dumped no page: $(tail -3 "$T/chrome.log")"
grep -q '<title>kptop synth 2023-11-14 22:13:20 UTC, 0.05 s, cpu-clock, 1000 Hz per CPU - speedscope</title>' "$T/dom.html" ||
	fail "speedscope did not take the file: $(grep -o '<title>[^<]*' "$T/dom.html")"
sed 's/<[^>]*>/ /g' "$T/dom.html" | tr -s ' \n' '  ' >"$T/text"
for want in 'synth (pid 4242) (1/3)' '1 synth (pid 4242) 100.00ms' \
	    '2 synth (pid 4242) thread 4242 synth 80.00ms' \
	    '3 synth (pid 4242) thread 4243 worker 20.00ms'; do
	grep -qF "$want" "$T/text" || fail "speedscope's page does not show '$want': $(head -c 800 "$T/text")"
done
echo "ok: $(cat "$T/valid")"
