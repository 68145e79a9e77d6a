package statedir

import (
	"fmt"
	"testing"
)

// TestKeptLogNumber: keptLogNumber reads what KeepRoundLog's fmt.Sscanf
// with fmt.Sprintf's check read.
func TestKeptLogNumber(t *testing.T) {
	names := []string{"000001.log", "000000.log", "123456.log", "999999.log", "1234567.log", "00001.log", "-00001.log", "-00000.log",
		"-99999.log", "+00001.log", "0000a1.log", "000001.json", "000001.log.1", ".000001.log", "000001.logx", " 00001.log", "0x0001.log",
		"00_001.log", "", ".log", "-12345.log", "--0001.log", "000001", "١٢٣٤٥٦.log"}
	for i := range 300 {
		names = append(names, fmt.Sprintf("%06d.log", i*3331-400000), fmt.Sprintf("%d.log", i))
	}
	for _, name := range names {
		var m int
		_, err := fmt.Sscanf(name, "%06d.log", &m)
		wantOK := err == nil && name == fmt.Sprintf("%06d.log", m)
		got, ok := keptLogNumber(name)
		if ok != wantOK || ok && got != m {
			t.Errorf("keptLogNumber(%q) = %d, %v; want %d, %v", name, got, ok, m, wantOK)
		}
	}
}
