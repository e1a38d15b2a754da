#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# push-errors.sh — every way a push goes wrong is one line naming the
# problem: a bad URL or option (exit 2 before sampling), a secret file
# others can read, a refused connection, a TLS failure (a self-signed
# server), 4xx (dropped for good, counted, never retried) and 5xx
# (retried, kept in the spool); and the headers and credentials a
# server asks for reach it. And TLS that works: --push-cacert with the CA
# that signed the server's certificate (a CA file others can change, or
# a link to one, is refused).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/push-lib.sh"

# one_line FILE WHAT: FILE has a line matching WHAT, and every line of
# FILE starts with "kptop: " (each message is one line).
one_line() {
	grep -q -- "$2" "$1" || fail "no message matching '$2': $(cat "$1")"
	if grep -v '^kptop: ' "$1" >"$T/stray"; then
		fail "a message of more than one line: $(cat "$T/stray")"
	fi
}

for url in ftp://127.0.0.1 pyroscope:// 'pyroscope://h:1/x?y=1' 'parca://u:p@host'; do
	"$KPTOP" --batch -n 0 --push "$url" 2>"$T/err" && fail "--push $url accepted"
	[ $? = 2 ] || fail "--push $url: exit not 2"
	one_line "$T/err" "invalid value .* for --push"
done
"$KPTOP" --batch --app-name 'a b' --push pyroscope://h 2>"$T/err"; [ $? = 2 ] || fail "--app-name 'a b'"
one_line "$T/err" "for --app-name"
"$KPTOP" --batch --push-header 'X: 1' 2>"$T/err"; [ $? = 2 ] || fail "--push-header without --push"
one_line "$T/err" "need --push URL"
"$KPTOP" --push pyroscope://h 2>"$T/err"; [ $? = 2 ] || fail "--push without --batch"
one_line "$T/err" "needs --batch"
printf 'user:secret\n' >"$T/auth"
chmod 644 "$T/auth"
"$KPTOP" --batch -n 1 --push pyroscope://127.0.0.1:1 --push-basic-auth "$T/auth" \
	--push-spool "$T/spool" 2>"$T/err"; [ $? = 2 ] || fail "a 0644 secret accepted"
one_line "$T/err" "push-basic-auth .*chmod 600"

start_split 60
# Refused: nothing listens; the profiles wait in the spool.
start_receiver "$T/rx"
port=$PORT
stop_receiver
push_kptop -F 199 -d 0.5 -n 2 --push "pyroscope://127.0.0.1:$port" 2>"$T/err" ||
	fail "refused: exit $?"
one_line "$T/err" "connection refused.*retrying in"
rm -rf "$T/spool"

# TLS: a self-signed certificate is not trusted by the system's store.
command -v openssl >/dev/null || skip "openssl is not installed: no TLS server"
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -days 1 \
	-keyout "$T/key.pem" -out "$T/cert.pem" >/dev/null 2>&1 || fail "openssl req"
start_receiver "$T/tls" --tls "$T/cert.pem" "$T/key.pem"
push_kptop -F 199 -d 0.5 -n 1 --push "pyroscope+https://127.0.0.1:$PORT" 2>"$T/err" ||
	fail "tls: exit $?"
one_line "$T/err" "TLS failure"
[ ! -f "$T/tls/log" ] || fail "an untrusted server got a profile"
stop_receiver
rm -rf "$T/spool"

# TLS with --push-cacert: a CA of our own signs the server's certificate
# for 127.0.0.1; the profile goes through, go tool pprof reads it.
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=kptop-test-ca -days 1 \
	-keyout "$T/ca.key" -out "$T/ca.pem" >/dev/null 2>&1 || fail "openssl req (CA)"
openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$T/srv.key" \
	-out "$T/srv.csr" >/dev/null 2>&1 || fail "openssl req (server)"
printf 'subjectAltName=IP:127.0.0.1\n' >"$T/san"
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
	-days 1 -extfile "$T/san" -out "$T/srv.pem" >/dev/null 2>&1 || fail "openssl x509 (sign)"
chmod 644 "$T/ca.pem"
start_receiver "$T/tls2" --tls "$T/srv.pem" "$T/srv.key"
push_kptop -F 199 -d 0.5 -n 1 --push "pyroscope+https://127.0.0.1:$PORT" \
	--push-cacert "$T/ca.pem" 2>"$T/err" || fail "--push-cacert: exit $?: $(cat "$T/err")"
sleep 0.3
no_invalid "$T/tls2"
[ "$(wc -l <"$T/tls2/log" 2>/dev/null)" = 1 ] || fail "--push-cacert: no profile over TLS: $(cat "$T/err")"
# (0.5 s at 199 Hz: too few samples for the split's shares)
"$GO" tool pprof -raw "$T/tls2/0001.pb.gz" >"$T/raw" 2>&1 || fail "go tool pprof: $(cat "$T/raw")"
grep -q "pid:\[$SPID\]" "$T/raw" || fail "the profile over TLS has no sample of pid $SPID"
stop_receiver
rm -rf "$T/spool"
chmod 664 "$T/ca.pem"
"$KPTOP" --batch -n 1 --push pyroscope+https://127.0.0.1:1 --push-cacert "$T/ca.pem" \
	--push-spool "$T/spool" 2>"$T/err"; [ $? = 2 ] || fail "a group-writable CA file accepted"
one_line "$T/err" "push-cacert .*chmod go-w"
chmod 644 "$T/ca.pem"
ln -s "$T/ca.pem" "$T/ca-link.pem"
"$KPTOP" --batch -n 1 --push pyroscope+https://127.0.0.1:1 --push-cacert "$T/ca-link.pem" \
	--push-spool "$T/spool" 2>"$T/err"; [ $? = 2 ] || fail "a link to a CA file followed"
one_line "$T/err" "push-cacert .*ca-link.pem"
printf 'not a certificate\n' >"$T/ca-bad.pem"
"$KPTOP" --batch -n 1 --push pyroscope+https://127.0.0.1:1 --push-cacert "$T/ca-bad.pem" \
	--push-spool "$T/spool" 2>"$T/err"; [ $? = 2 ] || fail "a CA file without a certificate accepted"
one_line "$T/err" "no PEM certificate"
rm -rf "$T/spool"

# 400: refused for good: dropped, counted, sent once each.
start_receiver "$T/r400" --status 400
push_kptop -F 199 -d 0.5 -n 3 --push "pyroscope://127.0.0.1:$PORT" 2>"$T/err" ||
	fail "400: exit $?"
sleep 0.3
one_line "$T/err" "refused the profile of .*HTTP 400"
grep -q "at exit: push: sent 0, waiting 0 .*rejected 3," "$T/err" || fail "400: $(tail -1 "$T/err")"
[ "$(wc -l <"$T/r400/invalid")" = 3 ] || fail "400: $(wc -l <"$T/r400/invalid") requests, not 3"
stop_receiver

# 503: retried, kept.
start_receiver "$T/r503" --status 503
push_kptop -F 199 -d 0.5 -n 2 --push "pyroscope://127.0.0.1:$PORT" 2>"$T/err" ||
	fail "503: exit $?"
one_line "$T/err" "HTTP 503 .*retrying in"
grep -q "at exit: push: sent 0, waiting 2 " "$T/err" || fail "503: $(tail -1 "$T/err")"
stop_receiver
rm -rf "$T/spool"

# What a server may ask for: a tenant header, basic auth, a bearer token.
chmod 600 "$T/auth"
start_receiver "$T/auth1" --header 'X-Scope-OrgID: team-a' \
	--auth "Basic $(printf user:secret | base64)"
push_kptop -F 199 -d 0.5 -n 1 --push "pyroscope://127.0.0.1:$PORT" \
	--push-header 'X-Scope-OrgID: team-a' --push-basic-auth "$T/auth" 2>"$T/err" ||
	fail "basic auth: exit $?: $(cat "$T/err")"
sleep 0.3
no_invalid "$T/auth1"
[ "$(wc -l <"$T/auth1/log")" = 1 ] || fail "basic auth: $(cat "$T/err")"
stop_receiver
printf 'tok-123\n' >"$T/token"
chmod 600 "$T/token"
start_receiver "$T/auth2" --auth "Bearer tok-123"
push_kptop -F 199 -d 0.5 -n 1 --push "parca://127.0.0.1:$PORT" \
	--push-bearer "$T/token" 2>"$T/err" || fail "bearer: exit $?: $(cat "$T/err")"
sleep 0.3
no_invalid "$T/auth2"
[ "$(wc -l <"$T/auth2/log")" = 1 ] || fail "bearer: $(cat "$T/err")"
ps -o args= -p $$ | grep -q secret && fail "a secret on a command line"
echo ok
