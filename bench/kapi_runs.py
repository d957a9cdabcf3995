"""What the bench scripts that compare kapi variants share: a kapi started on free ports (--insecure-port,
AlwaysAllow, a new data dir; the embedded store, or an etcd whose keys are wiped first), kapi-bench run against it,
and variants interleaved over rounds, their order flipped every other round, so that all share the machine's noise.
"""
import contextlib, json, os, shutil, socket, subprocess, sys, time, urllib.request


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def ready(url):
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=1) as r:
            return r.status == 200
    except Exception:
        return False


@contextlib.contextmanager
def running_kapi(binary, args, out_dir, name, etcd=None):
    """Yields (url, pid) of a kapi started with `args`, once ready and its controllers' first lists are done; stops
    it and removes its data dir afterwards. Its log is out_dir/kapi-NAME.log."""
    if etcd:
        subprocess.run(["etcdctl", f"--endpoints={etcd}", "del", "--prefix", "/"], check=True,
                       stdout=subprocess.DEVNULL)
    port = free_port()
    data = os.path.join(out_dir, f"data-{name}")
    argv = [binary, "--bind-address=127.0.0.1", f"--secure-port={free_port()}", f"--insecure-port={port}",
            f"--data-dir={data}", "--authorization-mode=AlwaysAllow", *args]
    if etcd:
        argv.append(f"--etcd-servers={etcd}")
    log = open(os.path.join(out_dir, f"kapi-{name}.log"), "w")
    kapi = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if ready(url) or kapi.poll() is not None:
                break
            time.sleep(0.1)
        if not ready(url):
            sys.exit(f"kapi ({name}) not ready, see {log.name}")
        time.sleep(1)
        yield url, kapi.pid
    finally:
        kapi.terminate(); kapi.wait(60); log.close()
        shutil.rmtree(data, ignore_errors=True)


def kapi_bench(bench_binary, args, json_path):
    """Runs `kapi-bench ARGS` quietly and returns its figures."""
    subprocess.run([bench_binary, *args, "--quiet", f"--json={json_path}"], check=True)
    with open(json_path) as f:
        return json.load(f)


def interleaved(variants, rounds, run):
    """{variant: [run(variant, round) for each round]}, the variants in the given order in even rounds and reversed
    in odd ones, after one run of the first variant that is not counted: the first kapi of a series starts on a
    cold page cache and disk, and its writes' p99 was the worst of its variant in each of three series."""
    print("warm-up run (not counted):", flush=True)
    run(variants[0], "warm-up")
    results = {variant: [] for variant in variants}
    for round_ in range(rounds):
        for variant in (variants if round_ % 2 == 0 else list(reversed(variants))):
            results[variant].append(run(variant, round_))
    return results
