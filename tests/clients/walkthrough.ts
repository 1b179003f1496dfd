// The issue's walkthrough with a TypeScript client: types generated from docs/openapi.json
// by openapi-typescript, untouched, and calls made by openapi-fetch. .ci/clients.sh
// generates `schema.d.ts` beside this file, compiles both with `tsc --strict` (so a
// response the document types wrongly fails to compile) and runs the result on Node.js
// against a real server.
//
// Environment: SVC_BASE (the server), SVC_TOKEN (a credential), SVC_LOGIN (its person),
// SVC_NAME (the monorepo to make).
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type ErrorCode = components["schemas"]["ErrorCode"];

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
const [base, token, login, name] = ["SVC_BASE", "SVC_TOKEN", "SVC_LOGIN", "SVC_NAME"].map(env);
const client = createClient<paths, "application/json">({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });

function check(ok: boolean, what: string, seen: unknown): void {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(seen)}`);
}
function step(text: string): void {
  console.log(`typescript: ${text}`);
}
/** An answer that must have succeeded: its typed body. */
function must<T>(answer: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (answer.data === undefined) {
    throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}
/** An answer that must have failed with `code`. */
function refused(answer: { error?: { error: { code: ErrorCode; message: string } } }, code: ErrorCode, what: string): string {
  check(answer.error?.error.code === code, `${what} should answer ${code}`, answer.error);
  return answer.error!.error.message;
}

const owner = { owner: login, monorepo: name };

// Create a monorepo, then see it listed (the listing's `list` shape, not the home view).
const made = must(await client.POST("/v1/monorepos", { body: { name } }), "createMonorepo");
check(made.full_name === `${login}/${name}`, "createMonorepo's full_name", made);
const listed = must(await client.GET("/v1/monorepos"), "listMonorepos");
check(listed.view === "list", "listMonorepos' view", listed);
if (listed.view === "list") {
  check(listed.items.some((m) => m.full_name === made.full_name), "listMonorepos' items", listed.items);
}
step(`created and listed ${made.full_name}`);

// The same name again: an error whose code the client reads.
const again = await client.POST("/v1/monorepos", { body: { name } });
step(`a second create answered monorepo_exists: ${refused(again, "monorepo_exists", "a second createMonorepo")}`);

// An issue, created and listed.
const issue = must(
  await client.POST("/v1/monorepos/{owner}/{monorepo}/issues", {
    params: { path: owner },
    body: { title: "Walk through", body: "With a generated client" },
  }),
  "createIssue",
);
const issues = must(await client.GET("/v1/monorepos/{owner}/{monorepo}/issues", { params: { path: owner } }), "listIssues");
check(issues.items.map((row) => row.number).join() === `${issue.number}`, "listIssues' items", issues.items);
step(`created and listed issue #${issue.number}`);

// A repo with main and a pushed branch, pushed with real git.
const repo = must(
  await client.POST("/v1/monorepos/{owner}/{monorepo}/repos", { params: { path: owner }, body: { path: "app" } }),
  "createRepo",
);
const pushUrl = repo.clone_url.replace("://", `://${login}:${token}@`);
const work = mkdtempSync(join(tmpdir(), "svc-walkthrough-"));
try {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: work, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(work, "README.md"), "hello\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "First commit");
  git("push", "-q", pushUrl, "main");
  git("switch", "-q", "-c", "feature");
  appendFileSync(join(work, "README.md"), "more\n");
  git("commit", "-q", "-am", "Add more");
  git("push", "-q", pushUrl, "feature");
} finally {
  rmSync(work, { recursive: true, force: true });
}

const inApp = { path: { ...owner, repo: "app" } };
const branches = must(await client.GET("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches", { params: inApp }), "listBranches");
check(branches.items.map((b) => b.name).join() === "feature", "listBranches' items", branches.items);
step(`listed branches of app: ${branches.items.map((b) => b.name).join(", ")}`);

const onFeature = { path: { ...inApp.path, branch: "feature" } };
const diff = must(
  await client.GET("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/diff", { params: onFeature }),
  "branchDiff",
);
check(diff.files.map((f) => f.path).join() === "README.md", "branchDiff's files", diff.files);
check(diff.stats.additions === 1 && diff.stats.deletions === 0, "branchDiff's stats", diff.stats);
step(`branchDiff: ${diff.files_total} file, +${diff.stats.additions} -${diff.stats.deletions}`);

const answer = must(
  await client.POST("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/merge", { params: onFeature }),
  "mergeBranch",
);
// 200 is the merge; 202 a queue entry (a repo with `merge_queue = true`, not this one).
if (!("merged_by" in answer)) throw new Error(`mergeBranch queued the branch: ${JSON.stringify(answer)}`);
const merged = answer;
check(merged.merged_by === login && !merged.forced, "mergeBranch's answer", merged);
step(`merged feature as ${merged.sha.slice(0, 12)}`);

// Merged once, the branch cannot merge again: another error, read the same way.
const twice = await client.POST("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/merge", { params: onFeature });
step(`a second merge answered not_open: ${refused(twice, "not_open", "a second mergeBranch")}`);
console.log("typescript: the walkthrough passed");
