# SPDX-License-Identifier: GPL-2.0
"""Issues 22 and 29, the manuals. README starts with the user: pitch,
requirements, install, quick start, the tables of the tool's and of the
_control commands, make demo and make check, in at most 150 lines, every
kstats command in it accepted by the tool's parser; the test platform is
in Documentation/testing.rst, linked from it. The tool's manual, made
into kstats(1), has the sections of a man page, opens with its command
table, which names every command of the parser, and has no section about
the project's tests."""
import os
import re
import shlex

import pytest

from conftest import REPO
from kstats import cli

README = open(os.path.join(REPO, 'README.md')).read()
MANUAL = open(os.path.join(REPO, 'Documentation', 'kstats-tool.rst')).read()
KERNEL = open(os.path.join(REPO, 'Documentation', 'kstats.rst')).read()
TESTING_PATH = os.path.join(REPO, 'Documentation', 'testing.rst')
TESTING = open(TESTING_PATH).read() if os.path.exists(TESTING_PATH) else ''


def readme_section(head):
    i = README.index('\n## %s\n' % head)
    j = README.find('\n## ', i + 4)
    return README[i:j if j >= 0 else len(README)]


def code_lines(text):
    """The lines of the ``` blocks of text, without comments."""
    out = []
    for block in re.findall(r'^```\n(.*?)^```$', text, re.M | re.S):
        for line in block.split('\n'):
            line = line.split('#', 1)[0].strip()
            if line:
                out.append(line)
    return out


def test_readme_order():
    heads = re.findall(r'^## (.*)$', README, re.M)
    assert heads[:3] == ['Requirements', 'Install', 'Quick start'], heads
    assert heads.index("The tool's commands") < heads.index('The `_control` commands'), heads
    assert re.match(r'# kstats\n\n[^\n]+\n[^\n]+\n\n## Requirements\n', README), \
        'a two-line pitch, then the requirements'
    req = readme_section('Requirements')
    for word in ('x86-64', '6.1', '6.12', '7.3', 'root', 'Secure Boot', '/dev/kstats',
                 'confidentiality', 'DKMS', '"Lockdown"'):
        assert word in req, word


def test_readme_length():
    assert README.count('\n') <= 150, README.count('\n')


def test_readme_two_setup_commands():
    """The project's two set-up commands: the demo, and every test (what
    .ci/run runs)."""
    lines = code_lines(readme_section('Without a machine to spare: make demo, make check'))
    assert 'make demo' in lines and 'make check' in lines, lines
    assert 'exec make check' in open(os.path.join(REPO, '.ci', 'run')).read()
    targets = re.findall(r'^([a-z-]+):', open(os.path.join(REPO, 'Makefile')).read(), re.M)
    for line in code_lines(README):
        for part in line.split('&&'):
            words = shlex.split(part)
            if words[0] == 'sudo':
                words = words[1:]
            if words[0] == 'make':
                for w in words[1:]:
                    assert '=' in w or w in targets, line


def test_readme_testing_link():
    assert TESTING, 'Documentation/testing.rst exists'
    assert README.count('(Documentation/testing.rst)') == 1
    # The timings and tables moved there, not out of the project.
    for fact in ('999 s', '2208 s', 'deb618', 'KSTATS_TARGETS', 'make bench', 'sparse',
                 'debootstrap', '.ci/run', 'kstats_main.c'):
        assert fact in TESTING, fact
    assert '999 s' not in README


@pytest.mark.parametrize('line', [x for x in code_lines(README) if re.match(r'(sudo )?kstats ', x)])
def test_readme_tool_lines_parse(line):
    """Every kstats command of the README is one the tool takes."""
    words = shlex.split(line)
    if words[0] == 'sudo':
        words = words[1:]
    args = cli.build_parser().parse_args(words[1:])
    assert args.command == words[1]


def table_first_column(section):
    return re.findall(r'^\| `([^`]+)`', section, re.M)


def test_readme_tool_table():
    listed = {c.split()[1] for c in table_first_column(readme_section("The tool's commands"))}
    assert sorted(listed) == sorted(cli.build_parser().subparsers), listed


def test_readme_control_table():
    section = readme_section('The `_control` commands')
    listed = re.findall(r'`([^`|]+)`', ' '.join(re.findall(r'^\| (.*?) \|', section, re.M)))
    for cmd in ('trace FUNC', 'trace pcpu:FUNC', 'trace NAME start X end Y', 'trace NAME gap X',
                'remove NAME', 'start NAME', 'stop NAME', 'reset NAME', 'calibrate'):
        assert cmd in listed, cmd
    grammar = KERNEL[KERNEL.index('\nCommands\n--------\n'):KERNEL.index('FILTER: pid N')]
    for cmd in listed:
        if cmd != 'command':
            assert cmd in grammar, cmd


MAN_SECTIONS = ['Synopsis', 'Description', 'Commands', 'Options', 'Control commands',
                'Examples', 'Files', 'Environment', 'Exit status', 'See also']


def manual_heads():
    return re.findall(r'^(.+)\n=+$', MANUAL, re.M)[1:]     # after the title


def manual_section(head):
    i = MANUAL.index('\n%s\n%s\n' % (head, '=' * len(head)))
    nxt = [MANUAL.index('\n%s\n%s\n' % (h, '=' * len(h))) for h in manual_heads()]
    later = [n for n in nxt if n > i]
    return MANUAL[i:min(later) if later else len(MANUAL)]


def test_manual_command_table():
    heads = manual_heads()
    assert heads[:3] == ['Synopsis', 'Description', 'Commands'], heads
    assert heads.index('Input files') > heads.index('Commands')
    table = manual_section('Synopsis')
    listed = re.findall(r'^    kstats ([a-z]+)', table, re.M)
    assert sorted(listed) == sorted(cli.build_parser().subparsers), listed


def test_manual_man_sections():
    heads = manual_heads()
    assert [h for h in heads if h in MAN_SECTIONS] == MAN_SECTIONS, heads
    assert heads[-5:] == MAN_SECTIONS[-5:], heads
    for h in heads:
        assert 'test' not in h.lower() and 'guest' not in h.lower(), h
    assert "The tool's code" not in MANUAL


def test_manual_control_grammar():
    grammar = manual_section('Control commands')
    for line in ('[value argN|retval [type T]]', 'trace NAME start X end Y', 'trace NAME gap X',
                 'start NAME | stop NAME | reset NAME', 'calibrate [samples N]',
                 'u8 | u16 | u32 | u64 | s8 | s16 | s32 | s64'):
        assert line in grammar, line


def test_manual_files_environment_exit():
    files = manual_section('Files')
    for path in ('/sys/kernel/debug/kstats/', '/sys/kernel/debug/kstats/_control', '/dev/kstats'):
        assert '``%s``' % path in files, path
    env = manual_section('Environment')
    read = set()
    for name in os.listdir(os.path.join(REPO, 'tool', 'kstats')):
        if name.endswith('.py'):
            src = open(os.path.join(REPO, 'tool', 'kstats', name)).read()
            read |= set(re.findall(r"os\.environ\.get\('([A-Z_]+)'", src))
    assert read, 'the tool reads environment variables'
    for var in read | {'COLUMNS'}:
        # User-facing ones in the man page, the tests' stand-ins in testing.rst.
        assert '``%s' % var in env or '``%s' % var in TESTING, var
    for var in ('KSTATS_DIR', 'COLUMNS', 'KSTATS_DEBUG'):
        assert '``%s``' % var in env, var
    status = manual_section('Exit status')
    codes = re.findall(r'^(\d+)\n    ', status, re.M)
    assert codes == ['0', '1', '2', '3', '70', '130'], codes
    src = open(os.path.join(REPO, 'tool', 'kstats', 'cli.py')).read()
    for code in re.findall(r'\brc = (\d+)|return (\d+)$', src, re.M):
        assert (code[0] or code[1]) in codes, code


def test_no_change_history():
    for text in (README, MANUAL):
        for phrase in ('as before', 'earlier runs', 'measured before the', 'no longer'):
            assert phrase not in text, phrase


@pytest.mark.parametrize('name', ['kstats.rst', 'kstats-tool.rst', 'testing.rst'])
def test_manuals_parse_clean(name):
    """Each manual is reStructuredText that docutils reads without a
    warning: a table whose text runs into its column margin is dropped
    from the output as a "Malformed table" error. The kernel's own
    kernel-doc directive is Sphinx's, taken here as read."""
    import docutils.core
    from docutils.parsers.rst import Directive, directives

    class KernelDoc(Directive):
        required_arguments = 1
        has_content = True

        def run(self):
            return []
    directives.register_directive('kernel-doc', KernelDoc)
    with open(os.path.join(REPO, 'Documentation', name)) as f:
        docutils.core.publish_doctree(f.read(), settings_overrides={
            'halt_level': 2, 'report_level': 2, 'warning_stream': False})
