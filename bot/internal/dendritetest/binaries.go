package dendritetest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	// binDirEnv overrides where the dendrite binaries are looked up.
	binDirEnv = "ADA_DENDRITE_BIN_DIR"
	// defaultBinDir is relative to the repository root and must match
	// DENDRITE_BIN_DIR in mk/dendrite.mk.
	defaultBinDir = ".cache/dendrite/bin"
	// rootModule identifies the repository root: the nested tools/dendrite
	// module has its own go.mod, so "first go.mod upwards" is not enough.
	rootModule = "github.com/ada-chat/ada"
)

// binaries holds absolute paths of the executables the harness runs.
type binaries struct {
	dendrite       string
	generateKeys   string
	generateConfig string
}

// requireBinaries returns the binaries or ends the test: Skip locally, Fatal
// under CI=true so a missing `make dendrite` step cannot hide the tests.
func requireBinaries(t testing.TB) binaries {
	t.Helper()
	b, err := findBinaries()
	if err == nil {
		return b
	}
	if isCI() {
		t.Fatalf("dendrite not built (CI=true, so this is a failure, not a skip): run make dendrite: %v", err)
	}
	t.Skipf("dendrite not built: run make dendrite (%v)", err)
	return binaries{} // unreachable: Skipf stops the test
}

func isCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

func findBinaries() (binaries, error) {
	dir := os.Getenv(binDirEnv)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return binaries{}, fmt.Errorf("%s is unset and %w", binDirEnv, err)
		}
		dir = filepath.Join(root, defaultBinDir)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return binaries{}, err
	}
	b := binaries{
		dendrite:       filepath.Join(dir, "dendrite"),
		generateKeys:   filepath.Join(dir, "generate-keys"),
		generateConfig: filepath.Join(dir, "generate-config"),
	}
	for _, p := range []string{b.dendrite, b.generateKeys, b.generateConfig} {
		if err := checkExecutable(p); err != nil {
			return binaries{}, err
		}
	}
	return b, nil
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// repoRoot walks up from the working directory (the package directory under
// `go test`) to the go.mod declaring rootModule.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if modulePath(filepath.Join(dir, "go.mod")) == rootModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod for module " + rootModule + " above the working directory")
		}
		dir = parent
	}
}

// modulePath returns the module path declared in a go.mod, or "" if the file
// is missing or has no module line.
func modulePath(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`+"`")
		}
	}
	return ""
}
