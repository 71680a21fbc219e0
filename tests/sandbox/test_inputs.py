"""File names a run cannot hold are the caller's invalid input, raised before anything runs (issue 14, item 8).

A sandbox error means "the sandbox failed, try again": clients retry it as an outage. A name that is too long,
a name that is both a file and another file's directory, too many files, or a path leaving the working
directory are mistakes of the request, so they raise :class:`InvalidSampleError` naming the field, and the code
scorer reports ``invalid_input``. Messages carry no PID or internal path.
"""

from __future__ import annotations

import re

import pytest

from rewardloop.errors import InvalidSampleError
from rewardloop.sandbox._sandbox import MAX_FILES, NAME_MAX

BAD = [
    ({"a" * (NAME_MAX + 1): "x"}, "path component of 256 bytes"),
    ({"d/" + "é" * 128: "x"}, "path component of 256 bytes"),  # 128 two-byte characters
    ({"x": "1", "x/y": "2"}, "is a file and also the directory"),
    ({"x/y/z": "1", "x": "2"}, "is a file and also the directory"),
    ({"a/./b": "1", "a/b": "2"}, "names the same file"),
    ({"/etc/passwd": "x"}, "relative paths inside"),
    ({"../up": "x"}, "relative paths inside"),
    ({"ok\ud800": "x"}, "lone surrogate"),
    ({f"f{i}": "" for i in range(MAX_FILES + 1)}, f"more than the {MAX_FILES}"),
]


@pytest.mark.sandbox
@pytest.mark.parametrize(("files", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_file_names_are_invalid_input_before_anything_runs(sandbox, files, message):
    with pytest.raises(InvalidSampleError, match=re.escape(message)) as caught:
        sandbox.run("print('ran')", "python", files=files)
    assert "files" in str(caught.value) or "surrogate" in str(caught.value)
    assert not re.search(r"/proc/\d+|/tmp/|pid \d+", str(caught.value))


@pytest.mark.sandbox
def test_good_nested_files_still_run(sandbox):
    result = sandbox.run(
        "print(open('d/e/f.txt').read() + open('g.txt').read())",
        "python",
        files={"d/e/f.txt": "deep", "g.txt": "!"},
    )
    assert result.ok and result.stdout.strip() == "deep!"
