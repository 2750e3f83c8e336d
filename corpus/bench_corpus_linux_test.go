package corpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// freeBytes is what an unprivileged process may still write under dir,
// or 0 when it cannot tell.
func freeBytes(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0
	}
	return int64(st.Bavail) * st.Bsize
}

// nobody are the ids the broken-entry check's child takes when the test
// runs as root, for whom mode 000 hides nothing.
const nobody = 65534

// unreadableAsChild makes cmd run where a mode-000 directory under root
// is unreadable: as it is, when this process is not root; as nobody (its
// home, cache and root made its own), when it is. It says why not when
// neither can be.
func unreadableAsChild(cmd *exec.Cmd, root string) (ok bool, why string) {
	if os.Geteuid() != 0 {
		return true, ""
	}
	if err := os.Chmod(root, 0o777); err != nil {
		return false, err.Error()
	}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return false, err.Error()
	}
	if err := os.Chown(home, nobody, nobody); err != nil {
		return false, err.Error()
	}
	attr := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	env := append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	// The child must reach the binary as nobody.
	trial := exec.Command(cmd.Path, "help")
	trial.SysProcAttr, trial.Env = attr, env
	if out, err := trial.CombinedOutput(); err != nil {
		return false, fmt.Sprintf("running as root, and %s does not run as nobody (%v): %.200s", cmd.Path, err, out)
	}
	cmd.SysProcAttr, cmd.Env = attr, env
	return true, ""
}
