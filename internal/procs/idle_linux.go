package procs

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
)

// idleLooker returns a looker that reads the time the processors spent
// idle (or waiting for I/O) from the first line of /proc/stat, in ticks
// of all processors together; nil when it cannot be read.
func idleLooker() looker {
	idle, total, ok := cpuTicks()
	if !ok {
		return nil
	}
	cpus := float64(runtime.NumCPU())
	return func() (float64, bool) {
		i, t, ok := cpuTicks()
		if !ok || t <= total {
			return 0, false
		}
		share := float64(i-idle) / float64(t-total)
		idle, total = i, t
		return share * cpus, true
	}
}

// cpuTicks reads the idle and the total ticks of all processors from the
// first line of /proc/stat: "cpu  user nice system idle iowait irq
// softirq steal ...".
func cpuTicks() (idle, total uint64, ok bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	var buf [512]byte // the first line is about 100 bytes
	n, _ := f.Read(buf[:])
	line, _, found := bytes.Cut(buf[:n], []byte("\n"))
	fields := bytes.Fields(line)
	if !found || len(fields) < 6 || string(fields[0]) != "cpu" {
		return 0, 0, false
	}
	// guest and guest_nice, after steal, are counted in user and nice
	// already.
	for i, field := range fields[1:min(len(fields), 9)] {
		v, err := strconv.ParseUint(string(field), 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return idle, total, true
}
