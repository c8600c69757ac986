package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// Percentile is the p-th percentile of d (0 when d is empty), rounded to
// the microsecond.
func Percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100].Round(time.Microsecond)
}

// Status is the field key of /proc/<pid>/status (VmHWM, VmRSS: "12345
// kB"), "?" when there is none.
func Status(pid int, key string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
