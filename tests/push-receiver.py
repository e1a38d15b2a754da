#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""push-receiver.py — a stand-in for Pyroscope and Parca in make check.

Neither server is packaged for Debian 12, so the push tests talk to this
receiver on 127.0.0.1. It checks what the servers check before they take
a profile:

  Pyroscope POST /ingest (pkg/ingester/pyroscope, pkg/validation): the
  query parameters name, from, until (Unix seconds, from < until) and
  format=pprof; name "APP{k=v,...}" with a service_name label; a gzip
  pprof body, non-empty.
  Parca POST /profiles/writeraw (parca.profilestore.v1alpha1.WriteRaw as
  grpc-gateway JSON): series[].labels.labels[] of {name, value} with
  valid label names and __name__, samples[].rawProfile base64 of a pprof.
  The pprof (pkg/normalizer/validate.go): string_table[0] == "", ids of
  mappings, locations and functions 1, 2, ... in order, references in
  range, as many values per sample as sample types, label keys set; and
  its time_nanos (+ duration) inside [from, until] (Pyroscope).

A valid profile is answered 200 and saved as DIR/NNNN.pb.gz (the gzip
pprof) with a line "NNNN PROTO APP FROM UNTIL HOSTNAME" in DIR/log; an
invalid one is answered 400 and its reason appended to DIR/invalid.

Usage: push-receiver.py DIR [--port N] [--slow SECS] [--status CODE]
       [--tls CERT KEY] [--auth 'Basic ...'|'Bearer ...'] [--header 'N: V']
The port it listens on is written to DIR/port.
"""
import base64
import gzip
import http.server
import json
import os
import re
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse


def varint(b, i):
    v = s = 0
    while True:
        if i >= len(b):
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i
        if s > 63:
            raise ValueError("varint too long")


def fields(b):
    """(field, wiretype, value) of one protobuf message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("truncated field %d" % f)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v


def ints(wt, v):
    """A repeated varint field: packed (wire type 2) or one value."""
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def check_pprof(gz, lo_s, hi_s):
    """Validate a gzip pprof; returns (number of samples, None) or (0, why)."""
    try:
        raw = gzip.decompress(gz)
    except Exception as e:
        return 0, "body is not gzip: %s" % e
    if not raw:
        return 0, "empty profile"
    p = {k: [] for k in (1, 2, 3, 4, 5, 6)}
    t = dur = 0
    for f, wt, v in fields(raw):
        if f in p:
            p[f].append((wt, v))
        elif f == 9:
            t = v
        elif f == 10:
            dur = v
    strings = [v.decode("utf-8") for _, v in p[6]]
    if not strings or strings[0] != "":
        return 0, "first string of the string table is not empty"
    ns = len(strings)
    ntypes = len(p[1])
    if ntypes == 0:
        return 0, "no sample type"
    for kind, field in (("mapping", 3), ("location", 4), ("function", 5)):
        for n, (_, msg) in enumerate(p[field]):
            ident = [v for f, _, v in fields(msg) if f == 1]
            if ident != [n + 1]:
                return 0, "%s ids are not sequential (%s at %d)" % (kind, ident, n)
            for f, wt, v in fields(msg):
                if kind == "mapping" and f in (5, 6) and v >= ns:
                    return 0, "mapping string out of range"
                if kind == "function" and f in (2, 3, 4) and v >= ns:
                    return 0, "function string out of range"
                if kind == "location" and f == 2 and v > len(p[3]):
                    return 0, "location's mapping out of range"
                if kind == "location" and f == 4:
                    for lf, _, lv in fields(v):
                        if lf == 1 and (lv == 0 or lv > len(p[5])):
                            return 0, "line's function out of range"
    for _, msg in p[2]:
        locs, vals = [], []
        for f, wt, v in fields(msg):
            if f == 1:
                locs += ints(wt, v)
            elif f == 2:
                vals += ints(wt, v)
            elif f == 3:
                lab = {lf: lv for lf, _, lv in fields(v)}
                if not lab.get(1) or lab[1] >= ns or lab.get(2, 0) >= ns:
                    return 0, "sample label without a key or out of range"
        if len(vals) != ntypes:
            return 0, "sample has %d values for %d sample types" % (len(vals), ntypes)
        if any(l == 0 or l > len(p[4]) for l in locs):
            return 0, "sample location id out of range"
    if lo_s is not None:
        if t < lo_s * 10**9 or t + dur > hi_s * 10**9:
            return 0, "profile time %d+%d outside [%d, %d] s" % (t, dur, lo_s, hi_s)
    return len(p[2]), None


LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, body=b""):
        if code != 200:
            with open(os.path.join(self.server.dir, "invalid"), "a") as f:
                f.write("%s %s: %s\n" % (self.command, self.path.split("?")[0],
                                         body.decode(errors="replace")))
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def save(self, proto, app, lo, hi, host, gz):
        srv = self.server
        with srv.lock:
            srv.seq += 1
            n = srv.seq
            with open(os.path.join(srv.dir, "%04d.pb.gz" % n), "wb") as f:
                f.write(gz)
            with open(os.path.join(srv.dir, "log"), "a") as f:
                f.write("%04d %s %s %d %d %s\n" % (n, proto, app, lo, hi, host))

    def do_POST(self):
        srv = self.server
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        if srv.slow:
            time.sleep(srv.slow)
        if srv.status != 200:
            return self.answer(srv.status, b"told to answer %d" % srv.status)
        if srv.auth and self.headers.get("Authorization") != srv.auth:
            return self.answer(401, b"missing or wrong Authorization")
        for name, value in srv.headers:
            if self.headers.get(name) != value:
                return self.answer(400, ("missing header %s" % name).encode())
        url = urllib.parse.urlsplit(self.path)
        if url.path.endswith("/ingest"):
            return self.pyroscope(url, body)
        if url.path.endswith("/profiles/writeraw"):
            return self.parca(body)
        return self.answer(404, b"no such endpoint")

    def pyroscope(self, url, body):
        q = urllib.parse.parse_qs(url.query)
        for k in ("name", "from", "until"):
            if len(q.get(k, [])) != 1:
                return self.answer(400, ("missing query parameter %s" % k).encode())
        if q.get("format") != ["pprof"]:
            return self.answer(400, b"format is not pprof")
        try:
            lo, hi = int(q["from"][0]), int(q["until"][0])
        except ValueError:
            return self.answer(400, b"from or until not a number")
        if lo >= hi:
            return self.answer(400, b"from is not before until")
        m = re.match(r"^([^{}]+)\{([^{}]*)\}$", q["name"][0])
        if not m:
            return self.answer(400, b"name is not APP{labels}")
        labels = dict(kv.split("=", 1) for kv in m.group(2).split(",") if kv)
        if not labels.get("service_name"):
            return self.answer(400, b"no service_name label")
        if not body:
            return self.answer(400, b"empty body")
        nsamples, why = check_pprof(body, lo, hi)
        if why:
            return self.answer(400, why.encode())
        self.save("pyroscope", labels["service_name"], lo, hi,
                  labels.get("hostname", "-"), body)
        self.answer(200)

    def parca(self, body):
        try:
            req = json.loads(body)
            series = req["series"]
        except Exception as e:
            return self.answer(400, ("bad JSON: %s" % e).encode())
        for s in series:
            labels = {}
            for l in s.get("labels", {}).get("labels", []):
                if not LABEL_NAME.match(l.get("name", "")):
                    return self.answer(400, b"invalid label name")
                labels[l["name"]] = l.get("value", "")
            if not labels.get("__name__"):
                return self.answer(400, b"no __name__ label")
            for smp in s.get("samples", []):
                try:
                    gz = base64.b64decode(smp["rawProfile"], validate=True)
                except Exception as e:
                    return self.answer(400, ("rawProfile not base64: %s" % e).encode())
                nsamples, why = check_pprof(gz, None, None)
                if why:
                    return self.answer(400, why.encode())
                self.save("parca", labels.get("service_name", "-"), 0, 1,
                          labels.get("hostname", "-"), gz)
        self.answer(200, b"{}")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    opts = {"port": 0, "slow": 0.0, "status": 200, "tls": None, "auth": None,
            "headers": []}
    while args:
        a = args.pop(0)
        if a == "--port":
            opts["port"] = int(args.pop(0))
        elif a == "--slow":
            opts["slow"] = float(args.pop(0))
        elif a == "--status":
            opts["status"] = int(args.pop(0))
        elif a == "--tls":
            opts["tls"] = (args.pop(0), args.pop(0))
        elif a == "--auth":
            opts["auth"] = args.pop(0)
        elif a == "--header":
            n, v = args.pop(0).split(":", 1)
            opts["headers"].append((n.strip(), v.strip()))
        else:
            sys.exit("push-receiver: unknown argument %s" % a)
    srv = Server(("127.0.0.1", opts["port"]), Handler)
    srv.dir, srv.slow, srv.status = out, opts["slow"], opts["status"]
    srv.auth, srv.headers = opts["auth"], opts["headers"]
    srv.lock, srv.seq = threading.Lock(), 0
    log = os.path.join(out, "log")
    if os.path.exists(log):  # a restart goes on numbering
        with open(log) as f:
            srv.seq = sum(1 for _ in f)
    if opts["tls"]:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*opts["tls"])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(os.path.join(out, "port.tmp"), "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
