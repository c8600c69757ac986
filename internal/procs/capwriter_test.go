package procs

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readerOnly hides the WriterTo of a reader from io.Copy, as the pipe of a
// program's output does when exec.Cmd copies it (os.File's WriteTo falls
// back to io.Copy of the file without it).
type readerOnly struct{ io.Reader }

// TestCapWriterReadFrom checks the way exec.Cmd fills a capWriter (io.Copy
// calls ReadFrom): it keeps the first max bytes, reads everything, calls
// overflow once on the first byte beyond max, and returns what the reader
// fails with, EOF being no failure.
func TestCapWriterReadFrom(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789", 10_000) // more than a read's room and the scratch buffer
	errRead := errors.New("read failed")
	tests := []struct {
		name      string
		r         io.Reader
		max       int64
		want      string
		wantN     int64
		dropped   bool
		overflows int
		wantErr   error
	}{
		{name: "nothing", r: strings.NewReader(""), max: 10, want: "", wantN: 0},
		{name: "less than the cap", r: strings.NewReader("ok\n"), max: 10, want: "ok\n", wantN: 3},
		{name: "exactly the cap", r: strings.NewReader("0123456789"), max: 10, want: "0123456789", wantN: 10},
		{name: "one byte more", r: strings.NewReader("0123456789x"), max: 10, want: "0123456789", wantN: 11, dropped: true, overflows: 1},
		{name: "one byte a read, beyond the cap", r: iotest.OneByteReader(strings.NewReader("0123456789xyz")), max: 10, want: "0123456789", wantN: 13, dropped: true, overflows: 1},
		{name: "data with EOF", r: iotest.DataErrReader(strings.NewReader("ok\n")), max: 10, want: "ok\n", wantN: 3},
		{name: "large, under the cap", r: strings.NewReader(big), max: 1 << 20, want: big, wantN: int64(len(big))},
		{name: "large, over the cap", r: strings.NewReader(big), max: 1000, want: big[:1000], wantN: int64(len(big)), dropped: true, overflows: 1},
		{name: "read error", r: io.MultiReader(strings.NewReader("ok\n"), iotest.ErrReader(errRead)), max: 10, want: "ok\n", wantN: 3, wantErr: errRead},
		{name: "read error beyond the cap", r: io.MultiReader(strings.NewReader("0123456789x"), iotest.ErrReader(errRead)), max: 10, want: "0123456789", wantN: 11, dropped: true, overflows: 1, wantErr: errRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			overflows := 0
			w := &capWriter{max: tt.max, overflow: func() { overflows++ }}
			n, err := io.Copy(w, readerOnly{tt.r})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("io.Copy error = %v, want %v", err, tt.wantErr)
			}
			got := struct {
				Buf       string
				N         int64
				Dropped   bool
				Overflows int
			}{w.buf.String(), n, w.dropped, overflows}
			want := struct {
				Buf       string
				N         int64
				Dropped   bool
				Overflows int
			}{tt.want, tt.wantN, tt.dropped, tt.overflows}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("io.Copy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCapWriterReadFromAllocatesNothing checks that io.Copy into a
// capWriter with room, as exec.Cmd copies a program's output, allocates no
// copy buffer (io.Copy's own is 32 KiB, for each stream of each run).
func TestCapWriterReadFromAllocatesNothing(t *testing.T) {
	const out = "{\"ok\":true}\n"
	w := &capWriter{max: 1 << 20}
	r := strings.NewReader(out)
	var src io.Reader = readerOnly{r}
	allocs := testing.AllocsPerRun(10, func() {
		w.buf.Reset()
		r.Reset(out)
		if _, err := io.Copy(w, src); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("io.Copy into a capWriter with room allocates %v times a run, want none", allocs)
	}
}
