package snapshot

import "syscall"

// openNoATime keeps a read of the previous snapshot from moving its access
// times: a run that fails leaves it exactly as it was. The kernel grants
// it to the file's owner only; OpenFile retries without it.
const openNoATime = syscall.O_NOATIME
