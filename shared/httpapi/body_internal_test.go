package httpapi

import "testing"

// JSON text that is not UTF-8 (raw bytes, lone surrogate escapes) decodes as NUL, which every
// text validator refuses naming the field, never as U+FFFD; valid text and pairs are kept.
func TestDecodeJSONMarksInvalidText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body, want string
	}{
		{"ASCII", `{"name":"abc"}`, "abc"},
		{"raw UTF-8", `{"name":"é城😀"}`, "é城😀"},
		{"escaped BMP", `{"name":"\u00e9\u57CE"}`, "é城"},
		{"escaped pair", `{"name":"a\ud83d\ude00b"}`, "a😀b"},
		{"escaped backslash before u", `{"name":"\\ud800"}`, `\ud800`},
		{"escaped quote then escape", `{"name":"\"\ud800"}`, "\"\x00"},
		{"raw invalid byte", "{\"name\":\"bad\xff\"}", "bad\x00"},
		{"truncated raw sequence", "{\"name\":\"a\xe5\x9f\"}", "a\x00\x00"},
		{"lone high surrogate", `{"name":"bad\ud800"}`, "bad\x00"},
		{"lone low surrogate", `{"name":"\udc00x"}`, "\x00x"},
		{"high then non-surrogate", `{"name":"\uD800\u0041"}`, "\x00A"},
		{"two highs", `{"name":"\ud800\ud800"}`, "\x00\x00"},
		{"low then high", `{"name":"\udc00\ud800"}`, "\x00\x00"},
	} {
		in, err := decodeJSON([]byte(c.body))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got, _ := in["name"].(string); got != c.want {
			t.Errorf("%s: decoded %q, want %q", c.name, got, c.want)
		}
	}
}
