"""The issue's walkthrough with the Python client openapi-python-client generates from
docs/openapi.json, untouched: .ci/clients.sh generates it as the package `svc_client` and
runs this against a real server. Every answer is read through the generated models, so a
response the document describes wrongly fails here.

Environment: SVC_BASE (the server), SVC_TOKEN (a credential), SVC_LOGIN (its person),
SVC_NAME (the monorepo to make).
"""

import os
import subprocess
import tempfile

from svc_client import AuthenticatedClient
from svc_client.api.branches import branch_diff, list_branches, merge_branch
from svc_client.api.issues import create_issue, list_issues
from svc_client.api.monorepos import create_monorepo, list_monorepos
from svc_client.api.repos import create_repo
from svc_client.models import (
    ApiErrorBody,
    BranchDiff,
    BranchList,
    CreateIssue,
    CreateMonorepo,
    CreateRepo,
    ErrorCode,
    Issue,
    IssueList,
    MergeResult,
    MonorepoChanged,
    MonorepoListingList,
    Repo,
)

base, token, login, name = (os.environ[k] for k in ("SVC_BASE", "SVC_TOKEN", "SVC_LOGIN", "SVC_NAME"))
client = AuthenticatedClient(base_url=base, token=token, raise_on_unexpected_status=True)


def expect(answer, model):
    """The parsed answer, which must be of the generated `model`."""
    assert isinstance(answer, model), f"expected {model.__name__}, got {answer!r}"
    return answer


def step(text):
    print(f"python: {text}")


# Create a monorepo, then see it listed (the listing's `list` shape, not the home view).
made = expect(create_monorepo.sync(client=client, body=CreateMonorepo(name=name)), MonorepoChanged)
assert made.full_name == f"{login}/{name}", made.full_name
listed = expect(list_monorepos.sync(client=client), MonorepoListingList)
assert f"{login}/{name}" in [m.full_name for m in listed.items], listed
step(f"created and listed {made.full_name}")

# The same name again: an error whose code the client reads.
again = expect(create_monorepo.sync(client=client, body=CreateMonorepo(name=name)), ApiErrorBody)
assert again.error.code == ErrorCode.MONOREPO_EXISTS, again.error
step(f"a second create answered {again.error.code.value}: {again.error.message}")

# An issue, created and listed.
issue = expect(
    create_issue.sync(login, name, client=client, body=CreateIssue(title="Walk through", body="With a generated client")),
    Issue,
)
issues = expect(list_issues.sync(login, name, client=client), IssueList)
assert [row.number for row in issues.items] == [issue.number], issues
step(f"created and listed issue #{issue.number}")

# A repo with main and a pushed branch, pushed with real git.
repo = expect(create_repo.sync(login, name, client=client, body=CreateRepo(path="app")), Repo)
push_url = repo.clone_url.replace("://", f"://{login}:{token}@", 1)
with tempfile.TemporaryDirectory() as work:
    def git(*args):
        subprocess.run(["git", *args], cwd=work, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    with open(os.path.join(work, "README.md"), "w") as f:
        f.write("hello\n")
    git("add", "README.md")
    git("commit", "-q", "-m", "First commit")
    git("push", "-q", push_url, "main")
    git("switch", "-q", "-c", "feature")
    with open(os.path.join(work, "README.md"), "a") as f:
        f.write("more\n")
    git("commit", "-q", "-am", "Add more")
    git("push", "-q", push_url, "feature")

branches = expect(list_branches.sync(login, name, "app", client=client), BranchList)
assert [b.name for b in branches.items] == ["feature"], branches
step(f"listed branches of app: {[b.name for b in branches.items]}")

diff = expect(branch_diff.sync(login, name, "app", "feature", client=client), BranchDiff)
assert [f.path for f in diff.files] == ["README.md"], diff
assert (diff.stats.additions, diff.stats.deletions) == (1, 0), diff.stats
step(f"branchDiff: {diff.files_total} file, +{diff.stats.additions} -{diff.stats.deletions}")

merged = expect(merge_branch.sync(login, name, "app", "feature", client=client), MergeResult)
assert merged.merged_by == login and not merged.forced, merged
step(f"merged feature as {merged.sha[:12]}")

# Merged once, the branch cannot merge again: another error code, read the same way.
twice = expect(merge_branch.sync(login, name, "app", "feature", client=client), ApiErrorBody)
assert twice.error.code == ErrorCode.NOT_OPEN, twice.error
step(f"a second merge answered {twice.error.code.value}: {twice.error.message}")
print("python: the walkthrough passed")
