// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/jitname.h"

#include <string.h>

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The decimal number [s, e), at most 9 digits (else 0). */
static uint32_t number(const char *s, const char *e)
{
	uint32_t v = 0;

	if (e - s > 9)
		return 0;
	for (; s < e; s++)
		v = v * 10 + (uint32_t)(*s - '0');
	return v;
}

/* "file:line" or "file:line:column" in [s, e): 1 with file and line set,
 * 0 if it is not one. */
static int location(const char *s, const char *e, struct kp_jitname *out)
{
	const char *p = e, *q;
	uint32_t num[2];
	int k = 0;

	while (k < 2) {
		for (q = p; q > s && is_digit(q[-1]); q--)
			;
		if (q == p || q - 1 <= s || q[-1] != ':')
			break;
		num[k++] = number(q, p);
		p = q - 1;
	}
	if (!k)
		return 0;
	copy(out->file, sizeof(out->file), s, (size_t)(p - s));
	out->line = num[k - 1];
	return 1;
}

static const char *after_prefix(const char *s, const char *const *tags, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(tags[i]);

		if (!strncmp(s, tags[i], l))
			return s + l;
	}
	return NULL;
}

/* V8's "Tag:[mark]name location": 1 when raw is one. */
static int parse_v8(const char *raw, struct kp_jitname *out)
{
	static const char *const js[] = { "JS:", "LazyCompile:", "Function:", "Script:",
					   "Eval:" };
	static const char *const other[] = { "Builtin:", "BytecodeHandler:", "Stub:",
					     "Handler:", "RegExp:", "Builtins:" };
	const char *s = after_prefix(raw, js, sizeof(js) / sizeof(js[0]));
	const char *end, *sp;

	if (!s) {
		if (!after_prefix(raw, other, sizeof(other) / sizeof(other[0])))
			return 0;
		copy(out->fn, sizeof(out->fn), raw, strlen(raw));
		out->runtime = KP_JIT_NODE;
		return 1;
	}
	if (*s && strchr("*~^+", *s))
		s++;
	end = s + strlen(s);
	sp = strrchr(s, ' ');
	if (sp && location(sp + 1, end, out))
		end = sp;
	if (end == s)
		copy(out->fn, sizeof(out->fn), "(anonymous)", 11);
	else
		copy(out->fn, sizeof(out->fn), s, (size_t)(end - s));
	out->runtime = KP_JIT_NODE;
	return 1;
}

/* CPython's "py::qualname:file". */
static int parse_python(const char *raw, struct kp_jitname *out)
{
	const char *s, *colon;

	if (strncmp(raw, "py::", 4))
		return 0;
	s = raw + 4;
	colon = strchr(s, ':');
	if (!colon || colon == s)
		return 0;
	copy(out->fn, sizeof(out->fn), s, (size_t)(colon - s));
	copy(out->file, sizeof(out->file), colon + 1, strlen(colon + 1));
	out->runtime = KP_JIT_PYTHON;
	return 1;
}

static int java_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '_' || c == '$' || c == '.' || c == '<' || c == '>' || c == '[' ||
	       c == ']';
}

/* The JVM's "Type pkg.Class.method(args)": a type, one space, a dotted
 * name, its arguments in parentheses at the end. */
static int parse_java(const char *raw, struct kp_jitname *out)
{
	const char *sp = strchr(raw, ' '), *p, *paren, *dot = NULL;

	if (!sp || sp == raw)
		return 0;
	for (p = raw; p < sp; p++)
		if (!java_char(*p))
			return 0;
	paren = strchr(sp + 1, '(');
	if (!paren || paren == sp + 1 || raw[strlen(raw) - 1] != ')')
		return 0;
	for (p = sp + 1; p < paren; p++) {
		if (!java_char(*p))
			return 0;
		if (*p == '.')
			dot = p;
	}
	if (!dot || dot == sp + 1 || dot + 1 == paren)
		return 0;
	copy(out->fn, sizeof(out->fn), sp + 1, strlen(sp + 1));
	out->runtime = KP_JIT_JAVA;
	return 1;
}

void kp_jitname__parse(const char *raw, struct kp_jitname *out)
{
	memset(out, 0, sizeof(*out));
	if (!raw)
		return;
	if (parse_v8(raw, out) || parse_python(raw, out) || parse_java(raw, out))
		return;
	memset(out, 0, sizeof(*out));
	copy(out->fn, sizeof(out->fn), raw, strlen(raw));
}

const char *kp_jitname__module(enum kp_jit_runtime rt)
{
	switch (rt) {
	case KP_JIT_NODE:
		return "[jit:node]";
	case KP_JIT_JAVA:
		return "[jit:java]";
	case KP_JIT_PYTHON:
		return "[jit:python]";
	default:
		return "[jit]";
	}
}
