/**
 * The program of the Python spawner (ADR 0480): starts the Run's git calls whose output is kept, in
 * place of the Node spawner (spawner-source.ts). Node (libuv) and perl start a process with a real
 * fork(), and every page the parent writes while the child still shares it costs a copy-on-write
 * fault: 6–9 ms of the Node spawner's CPU a call on a slow VM, ~7 ms of perl's (ADR 0476). Python's
 * os.posix_spawn is glibc's clone(CLONE_VM | CLONE_VFORK): nothing is copied, ~0.5 ms a call
 * (measured, ADR 0480). Run as `python3 -I -S -c` (no file to find, as with SPAWNER_SOURCE; no
 * site, no PYTHON* variables of the Run's environment).
 *
 * Frames both ways (frames.ts): a 4-byte big-endian length, a JSON header whose `sizes` gives the
 * lengths of the raw payloads that follow. Bytes never travel as lines.
 *   out: { ready: true } once, first (a spawner that never said it started nothing).
 *   in:  { id, command, cwd, idleMs, input: boolean } + payloads: the args, the env ("K=V"), each
 *        ended by a NUL byte, then the bytes for stdin when `input` (stdin is /dev/null otherwise).
 *   out: { id, code, signal, error, idle, cpuMs } + payloads: stdout, stderr; once the process has
 *        exited and both its pipes are at their end. `idleMs` without output stops it (SIGKILL).
 * One thread, one selectors loop over its stdin, the processes' pipes and their exits (a pidfd
 * each; SIGCHLD through set_wakeup_fd where there is no pidfd_open). The process's cwd is set by a
 * chdir here just before posix_spawn and undone after (one thread: nothing else sees it); the
 * program is looked up in the call's PATH, as execvp in the process would. Every signal is at its
 * default in the process, as libuv leaves it; like the Node spawner's kept calls, it stays in this
 * process group and the idle kill stops the process itself. `cpuMs` is that process's rusage
 * (user + system, with everything it waited for), from wait4.
 * When its stdin ends (the Run let it go, or is gone) it exits; a git it started finishes by itself.
 * The env may hold a token: it is only ever passed to posix_spawn, never written anywhere, and
 * nothing of a call reaches this process's stderr (which the Run does not read either); a frame it
 * cannot read ends it, silently.
 */
export const PY_SPAWNER_SOURCE = String.raw`
import errno, json, os, selectors, signal, struct, sys, time

# Older than 3.8 (no posix_spawn): exits before saying ready, and the Run takes the Node way.
if sys.version_info < (3, 8) or not hasattr(os, "posix_spawn"):
    os._exit(3)

# Python ignores SIGPIPE and SIGXFSZ for itself; a signal ignored here would stay ignored in git.
signal.signal(signal.SIGINT, signal.SIG_DFL)
SIGDEF = tuple(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP))
PIDFD = hasattr(os, "pidfd_open") and "--no-pidfd" not in sys.argv
NULL = os.open(os.devnull, os.O_RDONLY)
sel = selectors.DefaultSelector()
calls = {}  # pid -> call, until its reply is sent
wake_r = None
if not PIDFD:
    # A SIGCHLD wakes select through this pipe; the handler itself does nothing.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel.register(wake_r, selectors.EVENT_READ, None)


def put(head, *payloads):
    head["sizes"] = [len(p) for p in payloads]
    h = json.dumps(head, separators=(",", ":")).encode()
    data = memoryview(b"".join((struct.pack(">I", len(h)), h) + payloads))
    while data:
        try:
            data = data[os.write(1, data):]
        except BrokenPipeError:
            os._exit(0)


def reply(c, error=None):
    put({"id": c["id"], "code": c["code"], "signal": c["signal"], "error": error,
         "idle": c["idle"], "cpuMs": c["cpu"]}, b"".join(c["out"]), b"".join(c["err"]))


def ename(e):
    # A ValueError (a cwd or an environment no process can take) has no errno.
    n = getattr(e, "errno", None) or errno.EINVAL
    return errno.errorcode.get(n, "errno %d" % n)


def close(fd):
    try:
        sel.unregister(fd)
    except (KeyError, ValueError):
        pass
    os.close(fd)


def finish(c):
    # Over once the process is reaped and its stdout and stderr are at their end (Node's 'close').
    if c["exited"] and c["open"] == 0:
        if c["in"] is not None:
            close(c["in"])
            c["in"] = None
        del calls[c["pid"]]
        reply(c)


def resolve(command, env):
    # As execvp would in the process: the call's PATH, not this one's.
    if b"/" in command:
        return command
    for d in env.get(b"PATH", b"/usr/local/bin:/usr/bin:/bin").split(b":"):
        p = os.path.join(d or b".", command)
        if os.access(p, os.X_OK) and not os.path.isdir(p):
            return p
    return None


def start(m, args, env, data):
    c = {"id": m["id"], "code": None, "signal": None, "idle": False, "cpu": None, "out": [], "err": [],
         "exited": False, "open": 2, "in": None, "data": None}
    name = "spawn " + m["command"] + " "
    try:
        command, cwd = m["command"].encode(), m["cwd"].encode()
    except ValueError as x:
        return reply(c, name + ename(x))
    try:
        os.chdir(cwd)
    except (OSError, ValueError) as x:
        return reply(c, name + ename(x) + " (its cwd)")
    fds = []
    try:
        path = resolve(command, env)
        if path is None:
            return reply(c, name + "ENOENT")
        o = os.pipe()
        fds.extend(o)
        e = os.pipe()
        fds.extend(e)
        i = os.pipe() if data is not None else None
        fds.extend(i or ())
        acts = [(os.POSIX_SPAWN_DUP2, i[0] if i else NULL, 0), (os.POSIX_SPAWN_DUP2, o[1], 1), (os.POSIX_SPAWN_DUP2, e[1], 2)]
        pid = os.posix_spawn(path, [command, *args], env, file_actions=acts, setsigdef=SIGDEF, setsigmask=())
    except (OSError, ValueError) as x:
        for fd in fds:
            os.close(fd)
        return reply(c, name + ename(x))
    finally:
        os.chdir("/")
    os.close(o[1])
    os.close(e[1])
    c["pid"] = pid
    c["idleS"] = m["idleMs"] / 1000
    c["deadline"] = time.monotonic() + c["idleS"]
    calls[pid] = c
    for fd, key in ((o[0], "out"), (e[0], "err")):
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ, (c, key))
    if i:
        os.close(i[0])
        if data:
            os.set_blocking(i[1], False)
            c["in"], c["data"] = i[1], memoryview(data)
            sel.register(i[1], selectors.EVENT_WRITE, (c, "in"))
        else:
            os.close(i[1])
    if PIDFD:
        c["pidfd"] = os.pidfd_open(pid)
        sel.register(c["pidfd"], selectors.EVENT_READ, (c, "exit"))


def reaped(c, status, ru):
    c["cpu"] = round((ru.ru_utime + ru.ru_stime) * 1000)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            c["signal"] = signal.Signals(sig).name
        except ValueError:
            c["signal"] = "SIG%d" % sig
    else:
        c["code"] = os.WEXITSTATUS(status)
    c["exited"] = True
    c["deadline"] = None
    finish(c)


def reap_any():
    while calls:
        try:
            pid, status, ru = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        c = calls.get(pid)
        if c is not None:
            reaped(c, status, ru)


inbuf = bytearray()


def take_calls():
    # Whole frames start their call; a partial one waits for its rest.
    global inbuf
    at = 0
    while len(inbuf) - at >= 4:
        (hl,) = struct.unpack_from(">I", inbuf, at)
        if len(inbuf) - at < 4 + hl:
            break
        m = json.loads(bytes(inbuf[at + 4:at + 4 + hl]))
        sizes = m["sizes"]
        end = at + 4 + hl + sum(sizes)
        if len(inbuf) < end:
            break
        p, off = [], at + 4 + hl
        for s in sizes:
            p.append(bytes(inbuf[off:off + s]))
            off += s
        at = end
        env = dict(kv.partition(b"=")[::2] for kv in p[1].split(b"\0")[:-1])
        start(m, p[0].split(b"\0")[:-1], env, p[2] if m["input"] else None)
    del inbuf[:at]


def main():
    os.set_blocking(0, False)
    sel.register(0, selectors.EVENT_READ, None)
    put({"ready": True})
    while True:
        now = time.monotonic()
        deadlines = [c["deadline"] for c in calls.values() if c["deadline"] is not None]
        wait = max(0, min(deadlines) - now) if deadlines else None
        for key, _ in sel.select(wait):
            if key.data is None:
                if key.fd == 0:
                    try:
                        chunk = os.read(0, 1 << 18)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        # The Run let go of this spawner, or is gone; a git it started finishes by itself.
                        os._exit(0)
                    inbuf.extend(chunk)
                    take_calls()
                else:
                    try:
                        while os.read(wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
                    reap_any()
                continue
            c, what = key.data
            if what == "exit":
                close(c["pidfd"])
                _, status, ru = os.wait4(c["pid"], 0)
                reaped(c, status, ru)
            elif what == "in":
                try:
                    c["data"] = c["data"][os.write(c["in"], c["data"][:1 << 16]):]
                except BlockingIOError:
                    continue
                except OSError:
                    # The process stopped reading (EPIPE): not an error of ours.
                    c["data"] = b""
                if not c["data"]:
                    close(c["in"])
                    c["in"] = None
            else:
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                if chunk:
                    c[what].append(chunk)
                    if c["deadline"] is not None:
                        c["deadline"] = time.monotonic() + c["idleS"]
                else:
                    close(key.fd)
                    c["open"] -= 1
                    finish(c)
        now = time.monotonic()
        for c in list(calls.values()):
            if c["deadline"] is not None and c["deadline"] <= now:
                c["deadline"] = None
                c["idle"] = True
                os.kill(c["pid"], signal.SIGKILL)


try:
    os.chdir("/")
    main()
except BaseException:
    # A frame it cannot read, or anything else: it ends, saying nothing (nothing of a call is ever written).
    os._exit(2)
`;
