package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// secureDeleteVersion is the schema version from which deleted content is
// overwritten (secure_delete, the keyword index's secure-delete; migration
// 16).
const secureDeleteVersion = 16

// vacuumAfterUpgrade rebuilds a database written before
// secureDeleteVersion, once, when it is upgraded: its free pages still
// hold what was deleted before, forgotten words among them, which
// secure_delete does not reach (it only zeroes what is deleted from now
// on). VACUUM writes a fresh copy of the live content; it takes as long as
// copying the file, and as much free disk space, the one time.
func vacuumAfterUpgrade(ctx context.Context, write *sql.DB, before int) error {
	if before <= 0 || before >= secureDeleteVersion {
		return nil // a new database, or one that was already secure
	}
	if _, err := write.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("vacuum after upgrading from schema version %d: %w", before, err)
	}
	return nil
}
