package dotenv

import (
	"bytes"
	"testing"
)

// FuzzParseAs reads arbitrary env files in every dialect: no panic, and
// every entry a valid name on a line of the file.
func FuzzParseAs(f *testing.F) {
	for _, b := range []string{
		"X=ovr\r\nY=1\r\n",
		"X=other\r\nY=1\r\n",
		"\xef\xbb\xbfX=other\nY=1\n",
		"\xef\xbb\xbfY=1\nX=ovr\n",
		"X=ovr # the value\nY=1\n",
		"export X=other\nexport Y=1\n",
		"X=\"ovr\"\nY='1'\n",
		"# a comment\nX=other\n\nY=1\n",
	} {
		f.Add([]byte(b), uint8(0), false)
	}
	f.Add([]byte("X=1 # c\r\nexport Y='a b'\n\xef\xbb\xbfZ=\"q\n"), uint8(1), true)
	f.Fuzz(func(t *testing.T, src []byte, d uint8, stripCR bool) {
		dialect := Dialect(d % 5)
		entries, _ := ParseAs("f.env", src, dialect, stripCR)
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, e := range entries {
			if !isName(e.Name) || e.Line < 1 || e.Line > lines {
				t.Fatalf("dialect %d: bad entry %+v", dialect, e)
			}
		}
	})
}
