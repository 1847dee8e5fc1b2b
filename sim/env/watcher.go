package env

import (
	"io"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// watcherScript outlives this process. It reads instructions from its stdin and, when stdin reaches end of
// file without "done" (this process died, even by SIGKILL or the OOM killer), carries them out: "pid N" kills
// N's process group, "rm P" removes what the shell pattern P matches at that moment, "note F" writes a line
// saying the run did not complete to F when F's directory exists. Patterns are expanded without word
// splitting, so paths with spaces work.
const watcherScript = `pids=; rms=; notes=
nl='
'
while IFS= read -r line; do
  case "$line" in
    "pid "*) pids="$pids ${line#pid }" ;;
    "rm "*) rms="$rms$nl${line#rm }" ;;
    "note "*) notes="$notes$nl${line#note }" ;;
    done) exit 0 ;;
  esac
done
for p in $pids; do kill -KILL -- "-$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
[ -n "$pids" ] && sleep 1
IFS=$nl
for pat in $rms; do
  IFS=
  for f in $pat; do rm -rf -- "$f"; done
  IFS=$nl
done
for f in $notes; do
  [ -d "${f%/*}" ] && echo "This run did not complete: its process was killed before it could stop cleanly." > "$f"
done
`

// Watcher cleans up after this process if it dies without saying it is done: it is a /bin/sh process
// in its own process group (a terminal's ^C reaches this process, which cleans up itself) that holds a
// pipe from this one. A nil *Watcher (no /bin/sh) does nothing.
type Watcher struct {
	mu    sync.Mutex
	stdin io.WriteCloser
}

// StartWatcher starts a watcher; it returns nil where /bin/sh cannot be started.
func StartWatcher() *Watcher {
	cmd := exec.Command("/bin/sh", "-c", watcherScript)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		return nil
	}
	go func() { _ = cmd.Wait() }()
	return &Watcher{stdin: stdin}
}

func (w *Watcher) send(line string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stdin != nil {
		_, _ = io.WriteString(w.stdin, line+"\n")
	}
}

// KillGroupOnCrash kills pid's process group (and pid) if this process dies first.
func (w *Watcher) KillGroupOnCrash(pid int) { w.send("pid " + strconv.Itoa(pid)) }

// RemoveOnCrash removes what the shell pattern matches (expanded then) if this process dies first.
func (w *Watcher) RemoveOnCrash(pattern string) { w.send("rm " + pattern) }

// NoteOnCrash writes a line saying the run did not complete to file if this process dies first and the
// file's directory exists by then.
func (w *Watcher) NoteOnCrash(file string) { w.send("note " + file) }

// Release ends the watch. done says the work finished cleanly, so the watcher exits without acting;
// otherwise it acts now, as after a crash.
func (w *Watcher) Release(done bool) {
	if w == nil {
		return
	}
	if done {
		w.send("done")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stdin != nil {
		w.stdin.Close()
		w.stdin = nil
	}
}
