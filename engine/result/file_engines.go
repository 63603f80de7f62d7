package result

import "strings"

// FileEngines are the backends of metadata jobs (fio's file engines and
// storagebench's two): they do no data IO, so what is said of IO backends
// (io_uring or a fallback) does not apply to them. The engine registers
// exactly these (a test there keeps the two lists equal).
var FileEngines = []string{"filecreate", "filestat", "filedelete", "dircreate", "dirstat", "dirdelete", "sb_fileread", "sb_filerename"}

// IsFileEngine reports whether a backend, as a merged result names it
// ("filestat" or "filestat (reason)"), is a file engine.
func IsFileEngine(backend string) bool {
	name, _, _ := strings.Cut(backend, " ")
	for _, e := range FileEngines {
		if name == e {
			return true
		}
	}
	return false
}
