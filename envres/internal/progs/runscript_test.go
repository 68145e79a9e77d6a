package progs

import "testing"

func TestScriptOffset(t *testing.T) {
	tests := []struct {
		src, name string
		off       int
		cmd       string
		ok        bool
	}{
		{`{"scripts": {"dev": "vite"}}`, "dev", 21, "vite", true},
		{"{\n  \"name\": \"a\",\n  \"config\": {\"scripts\": {\"dev\": \"no\"}},\n  \"scripts\": {\n    \"build\": \"tsc\",\n    \"dev\": \"next dev\"\n  }\n}", "dev", 104, "next dev", true},
		{`{"scripts": {"dev": ["not", "a", "command"], "start": "node s.js"}}`, "start", 55, "node s.js", true},
		{`{"scripts": {"dev": "vite"}}`, "start", 0, "", false},
		{`{"scripts": "dev"}`, "dev", 0, "", false},
		{`[1, 2]`, "dev", 0, "", false},
		{`{"scripts": {"dev": "vi`, "dev", 0, "", false},
		{``, "dev", 0, "", false},
	}
	for _, tt := range tests {
		off, cmd, ok := ScriptOffset([]byte(tt.src), tt.name)
		if off != tt.off || cmd != tt.cmd || ok != tt.ok {
			t.Errorf("ScriptOffset(%q, %q) = %d, %q, %v; want %d, %q, %v", tt.src, tt.name, off, cmd, ok, tt.off, tt.cmd, tt.ok)
		}
		if ok && tt.src[off:off+len(cmd)] != cmd {
			t.Errorf("ScriptOffset(%q): offset %d does not start the command", tt.src, off)
		}
	}
}
