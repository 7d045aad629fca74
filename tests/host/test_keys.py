# SPDX-License-Identifier: GPL-2.0
"""Issue 28, per-key histograms (trace ... by KEY): the key table of show
(orders, --top, other), --key, show --json's keys, escaped comms, cgroup
ids as paths (KSTATS_CGROUP_ROOT), watch's keys by rate, diff key by key,
export's key label and --top, captures that keep _keys/NAME, and an
entry without keys unchanged. Every sample is the lowest value of its
slot, so that every estimate is exact."""
import json
import os
import re
import shutil

from conftest import entry_text, keys_text, run, run_then, write_capture, write_keyed
COUNT_RE = re.compile(r'^kstats_duration_seconds_count\{entry="rd"(?:,key="(.*)")?\} (\d+)$')

# bits 2; 3 keys and the other histogram (1 sample, keys_dropped 1).
KEYS = {
    'bash': [(0, 1024)] * 3 + [(1, 2048)] * 2 + [(1, 4096)],
    'my\\040prog': [(0, 512), (0, 640), (0, 768)],
    'kworker/0:1': [(1, 8192)] * 2,
    None: [(0, 98304)],
}

TABLE = [
    'per key (by comm, largest count first, top 20):',
    'key          count      p50      p90      p99     max',
    'bash             6   1.02us  4.10us*  4.10us*  4.10us',
    'my prog          3    640ns   768ns*   768ns*   768ns',
    'kworker/0:1      2   8.19us  8.19us*  8.19us*  8.19us',
    'other            1  98.3us*  98.3us*  98.3us*  98.3us',
    '* too few samples for the percentile: it reads as the max (samples needed: p50 2, '
    'p90 10, p99 100)',
    'keys 3 (at most 32), keys_dropped 1 (samples of keys beyond keys_max); other: the keys '
    'below the top and those samples',
]


def keyed(tmp_path, keys=None, by='comm', name='rd'):
    return write_keyed(tmp_path / 'cap', name, 2, by, keys or KEYS)


def table_lines(out):
    lines = out.split('\n')
    return lines[lines.index(next(x for x in lines if x.startswith('per key'))):-1]


def names_in_order(out):
    return [line.split('  ')[0].strip() for line in table_lines(out)[2:-2]]


def test_key_table(tmp_path):
    out = run('show', '--dir', keyed(tmp_path), 'rd').stdout
    assert table_lines(out) == TABLE
    # The merged view comes first, as for any entry: all 12 samples.
    assert out.startswith('rd  (')
    assert 'count 12  min 512ns  mean 10.7us  max 98.3us' in out


def test_sort_orders(tmp_path):
    d = keyed(tmp_path)
    for sort, want in (('count', ['bash', 'my prog', 'kworker/0:1']),
                       ('p50', ['kworker/0:1', 'bash', 'my prog']),
                       ('p99', ['kworker/0:1', 'bash', 'my prog']),
                       ('max', ['kworker/0:1', 'bash', 'my prog']),
                       ('key', ['bash', 'kworker/0:1', 'my prog'])):
        out = run('show', '--dir', d, 'rd', '--sort', sort).stdout
        assert names_in_order(out) == want + ['other'], sort
    r = run('show', '--dir', d, 'rd', '--sort', 'mean', check=False)
    assert r.returncode == 2 and 'invalid choice' in r.stderr


def test_top_sums_the_rest_into_other(tmp_path):
    out = run('show', '--dir', keyed(tmp_path), 'rd', '--top', '1').stdout
    # other: my prog, kworker/0:1 and the kernel's other, 512 640 768 8192 8192 98304.
    assert table_lines(out)[:4] == [
        'per key (by comm, largest count first, top 1):',
        'key    count     p50      p90      p99     max',
        'bash       6  1.02us  4.10us*  4.10us*  4.10us',
        'other      6   768ns  98.3us*  98.3us*  98.3us']


def test_numeric_keys_sort_as_numbers(tmp_path):
    keys = {'10': [(0, 4)], '9': [(0, 4)], '100': [(0, 4)], None: [(0, 4)]}
    out = run('show', '--dir', keyed(tmp_path, keys, 'pid'), 'rd', '--sort', 'key').stdout
    assert names_in_order(out) == ['9', '10', '100', 'other']
    assert 'per key (by pid, by key, top 20):' in out


def test_one_key(tmp_path):
    d = keyed(tmp_path)
    out = run('show', '--dir', d, 'rd', '--key', 'my prog').stdout
    lines = out.split('\n')
    assert lines[0] == 'rd  (%s)' % os.path.join(d, '_keys', 'rd')
    assert 'by comm min 512 max 768 key my prog' in lines[2]
    assert lines[3].startswith('count 3  min 512ns  mean 640ns  max 768ns  p50 640ns')
    assert 'per key' not in out and 'per CPU:' in out
    # The kernel's escaped word names it too, and 'other' the other histogram.
    assert run('show', '--dir', d, 'rd', '--key', 'my\\040prog').stdout == out
    other = run('show', '--dir', d, 'rd', '--key', 'other').stdout
    assert 'count 1  min 98.3us  mean 98.3us  max 98.3us' in other


def test_unknown_key(tmp_path):
    r = run('show', '--dir', keyed(tmp_path), 'rd', '--key', 'zsh', check=False)
    # The exit status of a missing entry.
    assert r.returncode == 1 and r.stdout == ''
    assert r.stderr == ('kstats: error: no key zsh in rd (by comm; keys: bash, my prog, '
                        'kworker/0:1, other)\n')


def test_json_keys(tmp_path):
    d = json.loads(run('show', '--dir', keyed(tmp_path), 'rd', '--json').stdout)
    assert d['count'] == 12 and d['by'] == 'comm'
    assert d['keys_max'] == 32 and d['keys_dropped'] == 1
    assert [k['key'] for k in d['keys']] == ['bash', 'my prog', 'kworker/0:1', 'other']
    assert [k['count'] for k in d['keys']] == [6, 3, 2, 1]
    assert [k.get('other') for k in d['keys']] == [None, None, None, True]
    bash = d['keys'][0]
    # The fields of an entry's own object.
    for field in ('count', 'min', 'max', 'percentiles', 'slots', 'per_cpu', 'mean', 'unit'):
        assert field in bash, field
    assert bash['percentiles']['p50']['value'] == 1024
    assert bash['max']['value'] == 4096 and bash['min']['value'] == 1024
    assert [(s['slot'], s['count']) for s in bash['slots']] == [(36, 3), (40, 2), (44, 1)]
    assert bash['info']['key'] == 'bash' and bash['info']['max'] == 4096
    assert sorted(bash['per_cpu']) == ['0', '1']
    one = json.loads(run('show', '--dir', keyed(tmp_path), 'rd', '--json', '--key',
                         'bash').stdout)
    assert one['count'] == 6 and 'keys' not in one


def test_comm_escapes(tmp_path):
    keys = {'a\\134b\\042': [(0, 4)], 'x\\303\\251': [(0, 8)], None: [(0, 1)]}
    d = keyed(tmp_path, keys)
    doc = json.loads(run('show', '--dir', d, 'rd', '--json').stdout)
    # Ties (one sample each) by name.
    assert [k['key'] for k in doc['keys']] == ['a\\b"', 'x\u00e9', 'other']
    out = run('show', '--dir', d, 'rd', '--sort', 'key').stdout
    assert names_in_order(out) == ['a\\b"', 'x\u00e9', 'other']
    # ASCII output: the look-alike '?' of a character it cannot encode.
    ascii_out = run('show', '--dir', d, 'rd', env={'LC_ALL': 'C', 'PYTHONIOENCODING':
                                                    'ascii'}).stdout
    assert 'x?' in ascii_out


def cgroup_tree(tmp_path):
    root = tmp_path / 'cgroup'
    for p in ('system.slice/foo.service', 'user.slice'):
        (root / p).mkdir(parents=True)
    return root, {p: str(os.stat(str(root / p)).st_ino)
                  for p in ('system.slice/foo.service', 'user.slice')}


def test_cgroup_paths(tmp_path):
    root, ino = cgroup_tree(tmp_path)
    keys = {ino['system.slice/foo.service']: [(0, 4)] * 3, ino['user.slice']: [(0, 8)] * 2,
            '999999999': [(0, 16)], None: [(0, 1)]}
    d = keyed(tmp_path, keys, 'cgroup')
    env = {'KSTATS_CGROUP_ROOT': str(root)}
    out = run('show', '--dir', d, 'rd', env=env).stdout
    assert names_in_order(out) == ['/system.slice/foo.service', '/user.slice', '999999999',
                                   'other']
    one = run('show', '--dir', d, 'rd', '--key', '/user.slice', env=env).stdout
    assert 'count 2  min 8ns' in one
    # A capture keeps the paths: they read the same where the tree differs.
    run('save', '--dir', d, 'rd', str(tmp_path / 'saved') + '/', env=env)
    text = open(str(tmp_path / 'saved' / '_keys' / 'rd')).read()
    assert '# cgroup %s /user.slice\n' % ino['user.slice'] in text
    shutil.rmtree(str(root))
    saved = run('show', '--dir', tmp_path / 'saved', 'rd', env=env).stdout
    assert names_in_order(saved) == names_in_order(out)
    # Without the tree, the numbers.
    live = run('show', '--dir', d, 'rd', env=env).stdout
    assert names_in_order(live) == [ino['system.slice/foo.service'], ino['user.slice'],
                                    '999999999', 'other']


def grow(d, keys):
    """The entry's files replaced by those of keys."""
    for name, text in keyed_files(keys):
        path = os.path.join(d, name)
        with open(path + '.new', 'w') as f:
            f.write(text)
        os.replace(path + '.new', path)


def keyed_files(keys):
    from conftest import entry_text
    allv = [s for v in keys.values() for s in v]
    return [('rd', entry_text(allv, 2, 2)), (os.path.join('_keys', 'rd'), keys_text(keys, 2, 2))]


MORE = dict(KEYS, bash=KEYS['bash'] + [(0, 1024)] * 4, zsh=[(1, 256)] * 2)


def test_watch_keys_by_rate(tmp_path):
    d = keyed(tmp_path)
    out = run_then(lambda: grow(d, MORE), 'watch', '--dir', d, 'rd', '-n', '2', '-i', '1.2')
    lines = out.split('\n')
    i = lines.index('keys, the highest rate first (top 10):')
    assert lines[i + 1].split() == ['key', 'samples', 'rate/s', 'p50', 'p99', 'max']
    rows = [x.split() for x in lines[i + 2:-1]]
    assert [(r[0], r[1], r[3], r[5]) for r in rows] == [('bash', '4', '1.02us', '1.02us'),
                                                        ('zsh', '2', '256ns', '256ns')]
    # 4 samples over the interval (at least 1.2 s, as long as it took).
    assert 0 < float(rows[0][2]) <= 4 / 1.2 + 0.01
    out = run_then(lambda: grow(d, dict(MORE, zsh=MORE['zsh'] * 2)), 'watch', '--dir', d, 'rd',
                   '-n', '2', '-i', '0.8', '--json')
    docs = [json.loads(x) for x in out.split('\n')[:-1]]
    assert docs[0]['keys'] is None
    assert [(k['key'], k['count']) for k in docs[1]['keys']] == [('zsh', 2)]
    assert docs[1]['keys'][0]['percentiles']['p50']['value'] == 256


def test_diff_key_by_key(tmp_path):
    a = keyed(tmp_path)
    b = write_keyed(tmp_path / 'b', 'rd', 2, 'comm', dict(
        MORE, **{'kworker/0:1': [(1, 16384)] * 2}))
    out = run('diff', os.path.join(a, 'rd'), os.path.join(b, 'rd')).stdout
    lines = out.split('\n')
    i = lines.index('Per key (x: A, +: B; other: the samples of keys beyond keys_max):')
    assert lines[i + 1:] == [
        'key          count x  count +  change   p50 x   p50 +   change   p99 x   p99 +   change',
        'bash               6       10  +66.7%  1.02us  1.02us    +0.0%  4.10us  4.10us    +0.0%',
        'my prog            3        3   +0.0%   640ns   640ns    +0.0%   768ns   768ns    +0.0%',
        'kworker/0:1        2        2   +0.0%  8.19us  16.4us  +100.0%  8.19us  16.4us  +100.0%',
        'zsh                0        2       -       -   256ns        -       -   256ns        -',
        'other              1        1   +0.0%  98.3us  98.3us    +0.0%  98.3us  98.3us    +0.0%',
        '']
    doc = json.loads(run('diff', os.path.join(a, 'rd'), os.path.join(b, 'rd'),
                         '--json').stdout)
    # By the samples of both sides: bash 16, my prog 6, kworker/0:1 4, zsh 2.
    assert doc['keys'][2] == {'key': 'kworker/0:1', 'a': {'count': 2, 'p50': 8192,
                                                          'p99': 8192},
                              'b': {'count': 2, 'p50': 16384, 'p99': 16384}}
    assert doc['keys'][3]['a'] is None and doc['keys'][-1]['other'] is True


def export_hists(*args):
    out = {}
    for line in run('export', *args).stdout.split('\n'):
        m = COUNT_RE.match(line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def test_export_key_labels(tmp_path):
    d = keyed(tmp_path)
    assert export_hists('--dir', d) == {None: 12, 'bash': 6, 'my prog': 3, 'kworker/0:1': 2,
                                        'other': 1}
    assert export_hists('--dir', d, '--top', '1') == {None: 12, 'bash': 6, 'other': 6}
    text = run('export', '--dir', d).stdout
    assert 'kstats_keys_dropped_total{entry="rd"} 1\n' in text
    # OpenMetrics escapes of a comm with a quote and a backslash.
    d2 = write_keyed(tmp_path / 'q', 'rd', 2, 'comm', {'a\\134b\\042': [(0, 4)]})
    assert 'key="a\\\\b\\""' in run('export', '--dir', d2).stdout
    r = run('export', '--dir', d, '--label', 'key=x', check=False)
    assert r.returncode == 2 and "label 'key' is the exporter's own" in r.stderr


def test_capture_round_trip(tmp_path):
    d = keyed(tmp_path)
    dest = str(tmp_path / 'saved')
    run('save', '--dir', d, '--all', dest)
    assert open(os.path.join(dest, '_keys', 'rd')).read() == \
        open(os.path.join(d, '_keys', 'rd')).read()
    for args in (['show', 'rd'], ['show', 'rd', '--json'], ['show', 'rd', '--key', 'bash'],
                 ['export']):
        live = run(args[0], '--dir', d, *args[1:]).stdout
        saved = run(args[0], '--dir', dest, *args[1:]).stdout
        assert saved == live.replace(d, dest), args
    out = run('diff', os.path.join(d, 'rd'), os.path.join(dest, 'rd')).stdout
    assert ['bash', '6', '6', '+0.0%'] in [x.split()[:4] for x in out.split('\n')]
    # A single file keeps the merged histogram only, and says so.
    r = run('save', '--dir', d, 'rd', tmp_path / 'one.txt')
    assert 'kept only in a capture directory' in r.stderr
    # record: its start and end captures keep the keys.
    rec = str(tmp_path / 'rec')
    run('record', '--dir', d, 'rd', '-n', '1', '-i', '0.05', '-o', rec)
    for part in ('start', 'end'):
        assert table_lines(run('show', '--dir', os.path.join(rec, part), 'rd').stdout) == TABLE


def test_entry_without_keys_unchanged(tmp_path):
    d = write_capture(tmp_path / 'plain', {'lat': (2, [(0, 1024), (1, 2048)])})
    out = run('show', '--dir', d, 'lat').stdout
    assert 'per key' not in out and 'per CPU:' in out
    assert out.split('\n')[-3] == '  1      1  50.0%  2.05us  2.05us*  2.05us*  2.05us*  ' \
        '2.05us*  2.05us'
    doc = json.loads(run('show', '--dir', d, 'lat', '--json').stdout)
    assert not set(doc) & {'keys', 'by', 'keys_max', 'keys_dropped'}
    r = run('show', '--dir', d, 'lat', '--key', 'bash', check=False)
    assert r.returncode == 1
    assert 'kstats: error: --key: lat has no per-key histograms' in r.stderr
    assert 'key=' not in run('export', '--dir', d).stdout


def test_keys_file_missing_or_bad(tmp_path):
    d = keyed(tmp_path)
    os.rename(os.path.join(d, '_keys', 'rd'), os.path.join(d, 'keys.bak'))
    r = run('show', '--dir', d, 'rd')
    assert 'per key' not in r.stdout and 'its keys were not saved' in r.stderr
    with open(os.path.join(d, '_keys', 'rd'), 'w') as f:
        f.write('key bash slot 36  CPU  0    count        3 avg     1024 p 1.000000\n')
    r = run('show', '--dir', d, 'rd', check=False)
    assert r.returncode == 1
    assert ":1: a slot line of key bash outside its block" in r.stderr
    text = open(os.path.join(d, 'keys.bak')).read().replace('count        2 avg     8192',
                                                            'count        x avg     8192')
    with open(os.path.join(d, '_keys', 'rd'), 'w') as f:
        f.write(text)
    r = run('show', '--dir', d, 'rd', check=False)
    # The line number in _keys/rd itself.
    assert r.returncode == 1 and "_keys/rd:16: column 6 (count): 'x'" in r.stderr


def test_key_table_fits_columns(tmp_path):
    long = 'a_rather_long_task_name_of_34_chars'
    d = keyed(tmp_path, {long: [(0, 1024)] * 2, None: [(0, 4)]})
    wide = table_lines(run('show', '--dir', d, 'rd').stdout)[1]
    assert wide.split() == ['key', 'count', 'p50', 'p90', 'p99', 'max'] and len(wide) > 60
    narrow = table_lines(run('show', '--dir', d, 'rd', env={'COLUMNS': '60'}).stdout)
    # Without p90, then p50; every line within 60 columns.
    assert narrow[1].split() == ['key', 'count', 'p99', 'max']
    assert narrow[2].split() == [long, '2', '1.02us*', '1.02us']
    assert max(len(x) for x in narrow) <= 60


def test_retval_keys_as_errno_names(tmp_path):
    """by retval: a negative return value is its errno name, in the
    table, for --key and in --json; others stay numbers."""
    keys = {'-11': [(0, 4)] * 3, '-4095': [(0, 4)], '0': [(0, 4)] * 2, '7': [(0, 4)],
            None: [(0, 4)]}
    d = keyed(tmp_path, keys, 'retval')
    out = run('show', '--dir', d, 'rd', '--sort', 'count').stdout
    # Ties by key: a number without an errno name as the number it is.
    assert names_in_order(out) == ['-EAGAIN', '0', '-4095', '7', 'other']
    j = json.loads(run('show', '--dir', d, 'rd', '--json').stdout)
    assert j['by'] == 'retval'
    assert [k['key'] for k in j['keys']] == ['-EAGAIN', '0', '-4095', '7', 'other']
    one = json.loads(run('show', '--dir', d, 'rd', '--json', '--key=-EAGAIN').stdout)
    assert one['count'] == 3


def test_syscall_keys_as_names(tmp_path, monkeypatch):
    """by syscall: numbers named from the uapi header (KSTATS_UNISTD);
    one it lacks stays a number."""
    unistd = tmp_path / 'unistd_64.h'
    unistd.write_text('#ifndef _ASM_UNISTD_64_H\n#define __NR_read 0\n#define __NR_write 1\n'
                      '#define __NR_openat 257\n#endif\n')
    keys = {'0': [(0, 4)] * 3, '1': [(0, 4)] * 2, '999': [(0, 4)], None: [(0, 4)]}
    d = keyed(tmp_path, keys, 'syscall')
    env = dict(os.environ, KSTATS_UNISTD=str(unistd))
    out = run('show', '--dir', d, 'rd', env=env).stdout
    assert names_in_order(out) == ['read', 'write', '999', 'other']
    one = json.loads(run('show', '--dir', d, 'rd', '--json', '--key', 'write', env=env).stdout)
    assert one['count'] == 2


def test_arg_keys_as_signed_numbers(tmp_path):
    """by argN: the argument's value, signed where its type is (the listing
    says 'by arg2 type s64'): numbers, never errno names, sorted as
    numbers, in the table, for --key and in --json."""
    keys = {'-11': [(0, 4)] * 3, '3': [(0, 4)], '10': [(0, 4)] * 2, None: [(0, 4)]}
    d = write_keyed(tmp_path / 'cap', 'rd', 2, 'arg2 type s64', keys)
    out = run('show', '--dir', d, 'rd', '--sort', 'key').stdout
    assert names_in_order(out) == ['-11', '3', '10', 'other']
    assert 'per key (by arg2, by key, top 20):' in out
    j = json.loads(run('show', '--dir', d, 'rd', '--json').stdout)
    assert j['by'] == 'arg2'
    assert [k['key'] for k in j['keys']] == ['-11', '10', '3', 'other']
    one = json.loads(run('show', '--dir', d, 'rd', '--json', '--key=-11').stdout)
    assert one['count'] == 3


def test_entry_read_before_its_keys(tmp_path):
    """The entry file, then _keys/NAME, are read at two moments of a live
    entry: a sample that lands between them (a bash call on CPU 1 here)
    must not make the keys add up to more than the count (CI, 2026-11-29:
    91-latency.sh's --by comm on a busy vfs_read)."""
    d = keyed(tmp_path)
    before = [s for k, v in KEYS.items() for s in v]
    before.remove((1, 4096))
    with open(os.path.join(d, 'rd'), 'w') as f:
        f.write(entry_text(before, 2, 2))
    out = run('show', '--dir', d, 'rd').stdout
    assert 'count 12  min 512ns  mean 10.7us  max 98.3us' in out
    assert table_lines(out) == TABLE
    doc = json.loads(run('show', '--dir', d, 'rd', '--json').stdout)
    assert doc['count'] == 12 and sum(k['count'] for k in doc['keys']) == 12


# by stack: two stacks of the kernel's folded form, outermost frame first.
STACK_A = 'ret_from_fork_asm;kthread;worker_fn+0x30[kmod];helper_run+0x1a[kstats_helper]'
STACK_B = 'ret_from_fork_asm;kthread;worker_fn+0x30[kmod];kstats_helper_work+0x12[kstats_helper]'


def test_stack_keys(tmp_path):
    """by stack: the key table names each stack by its number and its
    innermost frame and prints the stacks under it; --json gives the
    folded stack as the key; --folded gives 'FRAMES TOTAL' per stack
    (the sum of its samples, in ns), for flame graph tools, and the
    samples beyond keys_max as one line '[other] TOTAL', with a warning."""
    d = keyed(tmp_path, {STACK_A: [(0, 1024)] * 3 + [(1, 2048)] * 2,
                         STACK_B: [(1, 512)] * 2, None: [(0, 4096)]}, by='stack')
    out = run('show', '--dir', d, 'rd').stdout
    lines = table_lines(out)
    assert lines[0] == 'per key (by stack, largest count first, top 20):'
    assert lines[2].split()[:3] == ['#1', 'helper_run+0x1a[kstats_helper]', '5']
    assert lines[3].split()[:3] == ['#2', 'kstats_helper_work+0x12[kstats_helper]', '2']
    assert out.split('\n')[-3:-1] == [
        '#1 ' + STACK_A.replace(';', ' ; '), '#2 ' + STACK_B.replace(';', ' ; ')]
    doc = json.loads(run('show', '--dir', d, 'rd', '--json').stdout)
    assert [(k['key'], k['count']) for k in doc['keys']] == [
        (STACK_A, 5), (STACK_B, 2), ('other', 1)]
    r = run('show', '--dir', d, 'rd', '--folded')
    assert r.stdout == '%s %d\n%s %d\n[other] 4096\n' % (
        STACK_A, 3 * 1024 + 2 * 2048, STACK_B, 2 * 512)
    assert r.stderr == ('kstats: warning: rd: 1 samples of stacks beyond keys_max 32 are '
                        'one line [other] (more keys: trace ... keys N, kstats offcpu '
                        '--keys N)\n')
    # Without samples beyond keys_max, no such line and no warning.
    d2 = keyed(tmp_path / 'full', {STACK_A: [(0, 1024)], STACK_B: [(1, 512)]}, by='stack')
    r = run('show', '--dir', d2, 'rd', '--folded')
    assert (r.stdout, r.stderr) == ('%s 1024\n%s 512\n' % (STACK_A, STACK_B), '')
    r = run('show', '--dir', keyed(tmp_path / 'comm'), 'rd', '--folded', check=False)
    assert r.returncode == 1 and '--folded: rd has no stack keys (trace ... by stack)' in r.stderr
    r = run('show', '--dir', d, 'rd', '--folded', '--json', check=False)
    assert r.returncode == 1 and '--folded prints every stack key' in r.stderr
