package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// BenchmarkExportImport measures `ada export` and `ada import` of a store
// of 10,000 documents (memories, turns), with vectors and without (an
// import of the latter embeds every text with the hash embedder), and
// reports documents per second, the import's CPU time per document (user
// and system, the whole process: steadier than the rate on a shared
// machine) and the export's size.
func BenchmarkExportImport(b *testing.B) {
	const n = 10_000
	src := testEnv(b, nil)
	db := openEnvStore(b, src)
	if err := db.CheckEmbedder(context.Background(), "hash:v1"); err != nil {
		b.Fatal(err)
	}
	conv := core.NewConversationID()
	putGenerated(b, db, n, func(i int, d *core.Document) {
		if i%2 == 0 {
			d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5
			return
		}
		idx := i
		d.Meta.Type, d.Meta.ConversationID, d.Meta.Role, d.Meta.TurnIndex = core.DocTurn, conv, "user", &idx
	})
	db.Close()
	for _, tc := range []struct {
		name string
		args []string
	}{{"vectors", nil}, {"no-vectors", []string{"--no-vectors"}}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				file := b.TempDir() + "/ada.jsonl"
				start := time.Now()
				if out, err := runCmd(context.Background(), src, nil, append([]string{"export", file}, tc.args...)...); err != nil {
					b.Fatalf("export: %v\n%s", err, out)
				}
				exp := time.Since(start)
				st, _ := os.Stat(file)
				dst := testEnv(b, nil)
				start, cpu := time.Now(), cpuTime(b)
				if out, err := runCmd(context.Background(), dst, nil, "import", file); err != nil {
					b.Fatalf("import: %v\n%s", err, out)
				}
				imp, impCPU := time.Since(start), cpuTime(b)-cpu
				b.ReportMetric(float64(impCPU.Microseconds())/n, "import-cpu-µs/doc")
				b.ReportMetric(n/exp.Seconds(), "export-docs/s")
				b.ReportMetric(n/imp.Seconds(), "import-docs/s")
				b.ReportMetric(float64(st.Size())/(1<<20), "MiB")
			}
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
