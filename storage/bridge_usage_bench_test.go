package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkMemberUsageSince reads one member's answers of the last day (a
// quota check, made for every question while quotas are set) from 100,000
// usage rows: 100 rooms, 2,000 members, 50 answers each over the day. The
// "scan" run drops bridge_usage_member_ts first, to show what it saves.
func BenchmarkMemberUsageSince(b *testing.B) {
	const rows, members = 100_000, 2_000
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "ada.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	now := time.UnixMilli(1_700_000_000_000)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		at := now.Add(-time.Duration(i) * (24 * time.Hour / rows))
		if _, err := tx.ExecContext(ctx, addUsageSQL, fmt.Sprintf("!room%d:x", i%100), fmt.Sprintf("@m%d:x", i%members), at.UnixMilli()); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	br := db.Bridge()
	for _, run := range []string{"index", "scan"} {
		if run == "scan" {
			if _, err := db.write.ExecContext(ctx, "DROP INDEX bridge_usage_member_ts"); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(run, func(b *testing.B) {
			for i := range b.N {
				got, err := br.MemberUsageSince(ctx, fmt.Sprintf("@m%d:x", i%members), now.Add(-24*time.Hour))
				if err != nil || len(got) != rows/members {
					b.Fatalf("%d answers, %v; want %d", len(got), err, rows/members)
				}
			}
		})
	}
}
