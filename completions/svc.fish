# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_svc_global_optspecs
    string join \n server= json h/help V/version
end

function __fish_svc_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_svc_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_svc_using_subcommand
    set -l cmd (__fish_svc_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c svc -n "__fish_svc_needs_command" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_needs_command" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_needs_command" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_needs_command" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_needs_command" -f -a "login" -d 'Sign this machine in with the device flow (a code you approve in a browser)'
complete -c svc -n "__fish_svc_needs_command" -f -a "logout" -d 'Revoke this machine\'s credential on the server, then forget it'
complete -c svc -n "__fish_svc_needs_command" -f -a "auth" -d 'See and use this machine\'s sign-in'
complete -c svc -n "__fish_svc_needs_command" -f -a "git-credential" -d 'Answer git\'s credential requests (configured by svc auth setup-git and svc clone)'
complete -c svc -n "__fish_svc_needs_command" -f -a "credential" -d 'List, make and revoke your credentials'
complete -c svc -n "__fish_svc_needs_command" -f -a "monorepo" -d 'Make, list, view, rename, transfer and delete monorepos'
complete -c svc -n "__fish_svc_needs_command" -f -a "org" -d 'Make, view and edit organizations; add, invite and remove their people'
complete -c svc -n "__fish_svc_needs_command" -f -a "member" -d 'List, add, invite and remove a monorepo\'s people'
complete -c svc -n "__fish_svc_needs_command" -f -a "admin" -d 'Manage the server\'s people (site admins only)'
complete -c svc -n "__fish_svc_needs_command" -f -a "issue" -d 'List, open, view, edit, close, reopen and comment on a monorepo\'s issues; hand one to an agent'
complete -c svc -n "__fish_svc_needs_command" -f -a "agent" -d 'Launch coding agents on branches, follow their work, talk to them, stop them'
complete -c svc -n "__fish_svc_needs_command" -f -a "label" -d 'List and manage the labels of a monorepo\'s issues (owners manage them)'
complete -c svc -n "__fish_svc_needs_command" -f -a "repo" -d 'Make, list, view and edit the repos of a monorepo'
complete -c svc -n "__fish_svc_needs_command" -f -a "clone" -d 'Clone a monorepo: each repo\'s main at its path, the meta layer\'s files in .svc/'
complete -c svc -n "__fish_svc_needs_command" -f -a "branch" -d 'List, make, view, diff, edit, merge and delete the branches of a repo'
complete -c svc -n "__fish_svc_needs_command" -f -a "review" -d 'Approve, comment on or ask for changes on a branch; or --list its reviews'
complete -c svc -n "__fish_svc_needs_command" -f -a "status" -d 'Post commit statuses, the checks that gate merges'
complete -c svc -n "__fish_svc_needs_command" -f -a "checks" -d 'Show a commit\'s checks; exits 1 unless they pass the merge gate'
complete -c svc -n "__fish_svc_needs_command" -f -a "artifact" -d 'Documents and images kept on a branch, versioned, with comment threads'
complete -c svc -n "__fish_svc_needs_command" -f -a "release" -d 'Make, list, view, edit, publish and delete releases; upload and download their files'
complete -c svc -n "__fish_svc_needs_command" -f -a "deploy" -d 'Record and list a repo\'s deployments (svc records them, it deploys nothing)'
complete -c svc -n "__fish_svc_needs_command" -f -a "hook" -d 'Make, list and delete a monorepo\'s hooks; see, redeliver and replay their deliveries (owners)'
complete -c svc -n "__fish_svc_needs_command" -f -a "ci" -d 'Builds on the monorepo\'s CI service (Buildkite): connect, follow and steer builds'
complete -c svc -n "__fish_svc_needs_command" -f -a "sync" -d 'Sync this clone\'s .svc/ with the monorepo\'s meta layer, both ways'
complete -c svc -n "__fish_svc_needs_command" -f -a "api" -d 'Call any API route with your credential and print the JSON answer'
complete -c svc -n "__fish_svc_needs_command" -f -a "mcp" -d 'Serve svc\'s read tools to a coding agent (Model Context Protocol over stdio)'
complete -c svc -n "__fish_svc_needs_command" -f -a "meta" -d 'The older name of `svc sync`, still accepted'
complete -c svc -n "__fish_svc_needs_command" -f -a "completions" -d 'Print the shell completion script for svc'
complete -c svc -n "__fish_svc_needs_command" -f -a "daemon" -d 'Run, start, stop, inspect or install the svc daemon'
complete -c svc -n "__fish_svc_needs_command" -f -a "worktree" -d 'Make, list and remove branch worktrees'
complete -c svc -n "__fish_svc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand login" -l machine -d 'Name of this machine\'s credential [default: the host name]' -r
complete -c svc -n "__fish_svc_using_subcommand login" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand login" -l no-browser -d 'Don\'t open a browser; just print the URL and code'
complete -c svc -n "__fish_svc_using_subcommand login" -l with-token -d 'Read a credential\'s token from standard input, check it and store it'
complete -c svc -n "__fish_svc_using_subcommand login" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand login" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand login" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand logout" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand logout" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand logout" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand logout" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -f -a "status" -d 'Show the server, your login, this machine\'s credential and where it is stored'
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -f -a "token" -d 'Print this machine\'s credential for the server (for scripts)'
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -f -a "setup-git" -d 'Make git ask svc for credentials for this server (and only this server)'
complete -c svc -n "__fish_svc_using_subcommand auth; and not __fish_seen_subcommand_from status token setup-git help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from status" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from status" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from token" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from token" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from token" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from token" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from setup-git" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from setup-git" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from setup-git" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from setup-git" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the server, your login, this machine\'s credential and where it is stored'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "token" -d 'Print this machine\'s credential for the server (for scripts)'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "setup-git" -d 'Make git ask svc for credentials for this server (and only this server)'
complete -c svc -n "__fish_svc_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand git-credential" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand git-credential" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand git-credential" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand git-credential" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -f -a "list" -d 'List your credentials (never their tokens)'
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -f -a "create" -d 'Make a credential for another machine or a cloud sandbox; its token is shown once'
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -f -a "revoke" -d 'Revoke a credential; it stops working at once'
complete -c svc -n "__fish_svc_using_subcommand credential; and not __fish_seen_subcommand_from list create revoke help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from create" -l expires-in -d 'Seconds until it expires [default: never]' -r
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from create" -l permission -d 'A permission it holds (repeatable). Without any, a machine credential holds every permission and a sandbox none; `write_builds` lets it rebuild, cancel and retry CI builds' -r -f -a "write_builds\t''"
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from create" -l sandbox -d 'Make a sandbox credential instead of a machine one'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from revoke" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from revoke" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from revoke" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from help" -f -a "list" -d 'List your credentials (never their tokens)'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make a credential for another machine or a cloud sandbox; its token is shown once'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke a credential; it stops working at once'
complete -c svc -n "__fish_svc_using_subcommand credential; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -f -a "create" -d 'Make a monorepo (or, with --plain, a plain git repository)'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -f -a "list" -d 'List your monorepos: your own first, then by owner and name'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -f -a "view" -d 'Show a monorepo and its repos'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -f -a "rename" -d 'Rename a monorepo or move it to another owner; the old name keeps working'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -f -a "transfer" -d 'Move a monorepo to another owner, keeping its name; the old label keeps working'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -f -a "delete" -d 'Delete a monorepo with all its repos and records, for good'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and not __fish_seen_subcommand_from create list view rename transfer delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from create" -l owner -d 'The namespace to make it in [default: your login]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from create" -l plain -d 'A plain repository: one repo at `.`, no meta layer'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from list" -l owner -d 'Only this owner\'s' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from rename" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from rename" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from rename" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from rename" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from transfer" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from transfer" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from transfer" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from transfer" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from delete" -l confirm -d 'The same <owner>/<monorepo> again, to confirm' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from delete" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from delete" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make a monorepo (or, with --plain, a plain git repository)'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from help" -f -a "list" -d 'List your monorepos: your own first, then by owner and name'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show a monorepo and its repos'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from help" -f -a "rename" -d 'Rename a monorepo or move it to another owner; the old name keeps working'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from help" -f -a "transfer" -d 'Move a monorepo to another owner, keeping its name; the old label keeps working'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a monorepo with all its repos and records, for good'
complete -c svc -n "__fish_svc_using_subcommand monorepo; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "create" -d 'Make an organization, with you as its first owner'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "list" -d 'List the organizations you are in, with your role in each'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "view" -d 'Show an organization: its name, description, your role and how many people it has'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "edit" -d 'Change an organization\'s name, description or picture (owners only); what is not given stays'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "members" -d 'List an organization\'s people and their roles (its people only)'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "add" -d 'Add someone to an organization by login, or change their role (owners only)'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "remove" -d 'Remove someone from an organization (owners only); their access to its monorepos ends'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "invite" -d 'Invite someone to an organization by email (owners only)'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "invites" -d 'List an organization\'s pending invites (withdraw one with svc org uninvite)'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "uninvite" -d 'Withdraw a pending invite to an organization (owners only)'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "leave" -d 'Leave an organization; you lose its monorepos, but keep your own rows in them'
complete -c svc -n "__fish_svc_using_subcommand org; and not __fish_seen_subcommand_from create list view edit members add remove invite invites uninvite leave help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from create" -l name -d 'Its display name' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from create" -l description -d 'A line about it' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l name -d 'A new display name' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l description -d 'A new description' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l picture-url -d 'A new picture, an https URL' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l no-name -d 'Clear the display name'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l no-description -d 'Clear the description'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l no-picture-url -d 'Clear the picture'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from members" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from members" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from members" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from members" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from add" -l role -d 'Their role; for someone already in, their new role' -r -f -a "owner\t''
member\t''"
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from add" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from add" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from remove" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from remove" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invite" -l role -d 'Their role [default: member]' -r -f -a "owner\t''
member\t''"
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invite" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invite" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invite" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invite" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invites" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invites" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invites" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from invites" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from uninvite" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from uninvite" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from uninvite" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from uninvite" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from leave" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from leave" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from leave" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from leave" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make an organization, with you as its first owner'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the organizations you are in, with your role in each'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show an organization: its name, description, your role and how many people it has'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change an organization\'s name, description or picture (owners only); what is not given stays'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "members" -d 'List an organization\'s people and their roles (its people only)'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add someone to an organization by login, or change their role (owners only)'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove someone from an organization (owners only); their access to its monorepos ends'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "invite" -d 'Invite someone to an organization by email (owners only)'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "invites" -d 'List an organization\'s pending invites (withdraw one with svc org uninvite)'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "uninvite" -d 'Withdraw a pending invite to an organization (owners only)'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "leave" -d 'Leave an organization; you lose its monorepos, but keep your own rows in them'
complete -c svc -n "__fish_svc_using_subcommand org; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -f -a "list" -d 'List a monorepo\'s people, their roles and where their access comes from'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -f -a "add" -d 'Add someone to a monorepo by login, or change their role (owners only)'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -f -a "remove" -d 'Remove someone from a monorepo (owners only); their access ends at once'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -f -a "invite" -d 'Invite someone to a monorepo by email (owners only)'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -f -a "invites" -d 'List a monorepo\'s pending invites (owners only; withdraw one with svc member uninvite)'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -f -a "uninvite" -d 'Withdraw a pending invite to a monorepo (owners only)'
complete -c svc -n "__fish_svc_using_subcommand member; and not __fish_seen_subcommand_from list add remove invite invites uninvite help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from add" -l role -d 'Their role; for someone already in, their new role' -r -f -a "owner\t''
member\t''"
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from add" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from add" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from add" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from remove" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from remove" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from remove" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invite" -l role -d 'Their role [default: member]' -r -f -a "owner\t''
member\t''"
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invite" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invite" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invite" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invite" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invite" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invites" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invites" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invites" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invites" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from invites" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from uninvite" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from uninvite" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from uninvite" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from uninvite" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from uninvite" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a monorepo\'s people, their roles and where their access comes from'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add someone to a monorepo by login, or change their role (owners only)'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove someone from a monorepo (owners only); their access ends at once'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "invite" -d 'Invite someone to a monorepo by email (owners only)'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "invites" -d 'List a monorepo\'s pending invites (owners only; withdraw one with svc member uninvite)'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "uninvite" -d 'Withdraw a pending invite to a monorepo (owners only)'
complete -c svc -n "__fish_svc_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand admin; and not __fish_seen_subcommand_from user help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand admin; and not __fish_seen_subcommand_from user help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand admin; and not __fish_seen_subcommand_from user help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand admin; and not __fish_seen_subcommand_from user help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand admin; and not __fish_seen_subcommand_from user help" -f -a "user" -d 'Make, list, disable and enable the server\'s accounts'
complete -c svc -n "__fish_svc_using_subcommand admin; and not __fish_seen_subcommand_from user help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -f -a "add" -d 'Make an account and print a one-time sign-in link (valid 7 days) where the person sets a password'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -f -a "list" -d 'List every account on the server, by login'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -f -a "disable" -d 'Disable an account: its credentials and sessions end at once, and it cannot sign in until enabled again'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -f -a "enable" -d 'Let a disabled account sign in again'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from user" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from help" -f -a "user" -d 'Make, list, disable and enable the server\'s accounts'
complete -c svc -n "__fish_svc_using_subcommand admin; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "list" -d 'List issues, newest first: open ones unless told otherwise'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "create" -d 'Open an issue; without --body on a terminal, write it in your editor'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "view" -d 'Show an issue: its header, body and the latest of its timeline'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "edit" -d 'Change an issue\'s title, body, labels, assignees or project, all in one step'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "close" -d 'Close an issue, as completed unless said otherwise'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "reopen" -d 'Reopen a closed issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "comment" -d 'Comment on an issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "react" -d 'React to an issue or one of its comments, or take your reaction back'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "link" -d 'Link a branch to an issue, so that merging it closes the issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "agent" -d 'Launch a coding agent to address an open issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and not __fish_seen_subcommand_from list create view edit close reopen comment react link agent help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -l state -d 'open, closed or all' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -s s -l search -d 'Words that must all appear in the title or body (the last may be the start of a word)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -s l -l label -d 'Only issues with all of these labels, like bug,question' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -s a -l assignee -d 'Only issues assigned to this login' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -l project -d 'Only issues about this repo' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -l sort -d 'newest, oldest, updated or comments' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -s L -l limit -d 'At most this many rows (1 to 100)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -l cursor -d 'Go on where a previous page ended (its next_cursor)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s t -l title -d 'Its title (in the editor, the first line is the title when this is not given)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s b -l body -d 'Its body, Markdown' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s F -l body-file -d 'Read the body from this file (- for standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s l -l label -d 'Labels, like bug,question' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s a -l assignee -d 'Logins to assign, like ann,bob' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -l project -d 'The repo it is about' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from view" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from view" -l last -d 'How many of the newest timeline items to show (1 to 250)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -s t -l title -d 'A new title' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -s b -l body -d 'A new body (refused if someone else edited it since you read it with --base-version)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l base-version -d 'The body_version your new body was written on' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l add-label -d 'Labels to add, like bug,question' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l remove-label -d 'Labels to take off' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l add-assignee -d 'Logins to assign' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l remove-assignee -d 'Logins to unassign' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l project -d 'The repo it is about ("" for none)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from close" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from close" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from close" -l not-planned -d 'Close it as not planned'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from close" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from close" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from close" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from reopen" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from reopen" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from reopen" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from reopen" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from reopen" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from comment" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from comment" -s b -l body -d 'The comment, Markdown (- reads it from standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from comment" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from comment" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from comment" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from comment" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from react" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from react" -l comment -d 'React to this comment instead of the issue' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from react" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from react" -l remove -d 'Take the reaction back'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from react" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from react" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from react" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from link" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from link" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from link" -l remove -d 'Unlink it instead'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from link" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from link" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from link" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -s p -l prompt -d 'What to tell the agent beyond the issue itself (- reads it from standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -s b -l branch -d 'The branch to work on [default: issue-<number>-<the title\'s slug>]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -l project -d 'The repo to work in (its name), when the issue\'s project is not one repo' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -l model -d 'The model to run, one of svc agent models\' IDs [default: the server\'s default model]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from agent" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "list" -d 'List issues, newest first: open ones unless told otherwise'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "create" -d 'Open an issue; without --body on a terminal, write it in your editor'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show an issue: its header, body and the latest of its timeline'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change an issue\'s title, body, labels, assignees or project, all in one step'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "close" -d 'Close an issue, as completed unless said otherwise'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "reopen" -d 'Reopen a closed issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "comment" -d 'Comment on an issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "react" -d 'React to an issue or one of its comments, or take your reaction back'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "link" -d 'Link a branch to an issue, so that merging it closes the issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "agent" -d 'Launch a coding agent to address an open issue'
complete -c svc -n "__fish_svc_using_subcommand issue; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "launch" -d 'Launch a coding agent on a branch to carry out a task'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "list" -d 'List the monorepo\'s agent sessions, newest first'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "view" -d 'Show an agent session'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "log" -d 'Print an agent session\'s transcript; with --follow, as the agent works'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "send" -d 'Tell an agent session more: a follow-up to a task, or your next message in a chat'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "stop" -d 'Stop an agent session\'s run'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "review" -d 'Have an agent review a branch'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "chat" -d 'Ask the repository assistant in a new chat; or --list your chats'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "models" -d 'List the models agent sessions may run, the default marked'
complete -c svc -n "__fish_svc_using_subcommand agent; and not __fish_seen_subcommand_from launch list view log send stop review chat models help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from launch" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from launch" -s b -l branch -d 'The branch to work on: made off main when new' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from launch" -l model -d 'The model to run, one of svc agent models\' IDs [default: the server\'s default model]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from launch" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from launch" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from launch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from launch" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from view" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from log" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from log" -l color -d 'When to colour' -r -f -a "auto\t'When stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from log" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from log" -s f -l follow -d 'Keep printing what the agent says until its run ends'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from log" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from log" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from send" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from send" -l color -d 'When to colour (with --follow)' -r -f -a "auto\t'When stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from send" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from send" -s f -l follow -d 'Print the agent\'s answer as it comes, until its run ends'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from send" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from send" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from send" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from stop" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from stop" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from stop" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from stop" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from review" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from review" -s p -l prompt -d 'What to look at beyond the changes themselves (- reads it from standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from review" -l model -d 'The model to run, one of svc agent models\' IDs [default: the server\'s default model]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from review" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from review" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from review" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from review" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -l project -d 'The repo the chat is about (its name) [default: the whole monorepo]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -l model -d 'The model to run, one of svc agent models\' IDs [default: the server\'s default model]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -l color -d 'When to colour (with --follow)' -r -f -a "auto\t'When stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -s f -l follow -d 'Print the answer as it comes, until the assistant is done'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -l list -d 'List your chats in the monorepo, newest first'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from chat" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from models" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from models" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from models" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from models" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from models" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "launch" -d 'Launch a coding agent on a branch to carry out a task'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the monorepo\'s agent sessions, newest first'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show an agent session'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "log" -d 'Print an agent session\'s transcript; with --follow, as the agent works'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "send" -d 'Tell an agent session more: a follow-up to a task, or your next message in a chat'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop an agent session\'s run'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "review" -d 'Have an agent review a branch'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "chat" -d 'Ask the repository assistant in a new chat; or --list your chats'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "models" -d 'List the models agent sessions may run, the default marked'
complete -c svc -n "__fish_svc_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -f -a "list" -d 'List a monorepo\'s labels by name, with their open issues'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -f -a "create" -d 'Make a label (owners)'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -f -a "edit" -d 'Rename or recolour a label (owners); a rename moves it on every issue'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -f -a "delete" -d 'Delete a label (owners); it leaves every issue that has it'
complete -c svc -n "__fish_svc_using_subcommand label; and not __fish_seen_subcommand_from list create edit delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from create" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from create" -s c -l color -d 'One of the eight theme colours' -r -f -a "orange\t''
blue\t''
teal\t''
purple\t''
green\t''
yellow\t''
pink\t''
gray\t''"
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from create" -s d -l description -d 'A line about it' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -l rename -d 'Its new name' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -s c -l color -d 'Its new colour' -r -f -a "orange\t''
blue\t''
teal\t''
purple\t''
green\t''
yellow\t''
pink\t''
gray\t''"
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -s d -l description -d 'Its new description ("" clears it)' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from delete" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from delete" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from delete" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a monorepo\'s labels by name, with their open issues'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make a label (owners)'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Rename or recolour a label (owners); a rename moves it on every issue'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a label (owners); it leaves every issue that has it'
complete -c svc -n "__fish_svc_using_subcommand label; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -f -a "create" -d 'Make an empty repo in a monorepo; the first push to main creates main'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -f -a "list" -d 'List a monorepo\'s repos'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -f -a "view" -d 'Show one repo'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -f -a "edit" -d 'Change a repo\'s settings (owners)'
complete -c svc -n "__fish_svc_using_subcommand repo; and not __fish_seen_subcommand_from create list view edit help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from edit" -l releases-public -d 'Whether anyone, signed in or not, may download its release files (never its code)' -r -f -a "true\t''
false\t''"
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from edit" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from edit" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make an empty repo in a monorepo; the first push to main creates main'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a monorepo\'s repos'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show one repo'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change a repo\'s settings (owners)'
complete -c svc -n "__fish_svc_using_subcommand repo; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand clone" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand clone" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand clone" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand clone" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "list" -d 'List a repo\'s branches: main first, then open and merged ones, newest first'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "create" -d 'Make a branch on the server, pointing at main\'s head or --from, without a new commit'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "view" -d 'Show a branch: state, head, mergeability, checks, its merge and reviews'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "diff" -d 'Show a branch\'s changes since it left main, like git diff main...branch'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "edit" -d 'Set a branch\'s title or description, which become its merge commit\'s message'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "merge" -d 'Merge a branch into main with a merge commit, once its checks pass'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "delete" -d 'Delete a branch on the server (never main)'
complete -c svc -n "__fish_svc_using_subcommand branch; and not __fish_seen_subcommand_from list create view diff edit merge delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -l state -d 'Only branches in these states: open, merged or both, like open,merged' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -l limit -d 'At most this many rows' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -l cursor -d 'Go on where a previous page ended (its next_cursor)' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -l from -d 'A branch or commit sha to start from [default: main\'s head]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -l title -d 'Its title, which becomes the merge commit\'s subject' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -l description -d 'Its description, which becomes the merge commit\'s body' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from view" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -l color -d 'When to colour' -r -f -a "auto\t'When stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -l stat -d 'A diffstat instead of patches, laid out for $COLUMNS (default 80)'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -l no-pager -d 'Write to stdout, not through the pager'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from diff" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from edit" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from edit" -l title -d 'The new title; "" clears it' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from edit" -l description -d 'The new description; "" clears it' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from edit" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from edit" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from merge" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from merge" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from merge" -l force -d 'Merge past failing, missing or unknown checks; the merge is recorded as forced'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from merge" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from merge" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from delete" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from delete" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from delete" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a repo\'s branches: main first, then open and merged ones, newest first'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make a branch on the server, pointing at main\'s head or --from, without a new commit'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show a branch: state, head, mergeability, checks, its merge and reviews'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "diff" -d 'Show a branch\'s changes since it left main, like git diff main...branch'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Set a branch\'s title or description, which become its merge commit\'s message'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Merge a branch into main with a merge commit, once its checks pass'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a branch on the server (never main)'
complete -c svc -n "__fish_svc_using_subcommand branch; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand review" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand review" -s m -l message -d 'The review\'s text' -r
complete -c svc -n "__fish_svc_using_subcommand review" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand review" -l approve -d 'Approve it'
complete -c svc -n "__fish_svc_using_subcommand review" -l comment -d 'Comment on it (needs -m)'
complete -c svc -n "__fish_svc_using_subcommand review" -l request-changes -d 'Ask for changes (needs -m)'
complete -c svc -n "__fish_svc_using_subcommand review" -l list -d 'List its reviews, oldest first'
complete -c svc -n "__fish_svc_using_subcommand review" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand review" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand review" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand status; and not __fish_seen_subcommand_from post help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand status; and not __fish_seen_subcommand_from post help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand status; and not __fish_seen_subcommand_from post help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand status; and not __fish_seen_subcommand_from post help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand status; and not __fish_seen_subcommand_from post help" -f -a "post" -d 'Post a status on a commit; the latest per context counts in its checks'
complete -c svc -n "__fish_svc_using_subcommand status; and not __fish_seen_subcommand_from post help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from post" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from post" -l url -d 'Where to see the details' -r
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from post" -l description -d 'One line about the result' -r
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from post" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from post" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from post" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from post" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from help" -f -a "post" -d 'Post a status on a commit; the latest per context counts in its checks'
complete -c svc -n "__fish_svc_using_subcommand status; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand checks" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand checks" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand checks" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand checks" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand checks" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "add" -d 'Upload a document or image to a branch; a name already there gets a new version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "list" -d 'List a branch\'s artifacts, newest first, each with its newest version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "view" -d 'Show an artifact, every version of it and its comment threads'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "comment" -d 'Start a comment thread on an artifact, or reply in one; without a body on a terminal, write it in your editor'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "resolve" -d 'Resolve a comment thread on an artifact, or reopen it with --reopen'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "open" -d 'Open an artifact in your browser: a document rendered, with its images, or an image'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "delete" -d 'Delete an artifact from a branch: every version, its files and its comment threads'
complete -c svc -n "__fish_svc_using_subcommand artifact; and not __fish_seen_subcommand_from add list view comment resolve open delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from add" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from add" -s b -l branch -d 'The branch [default: the branch checked out here]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from add" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from add" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from list" -s b -l branch -d 'The branch [default: the branch checked out here]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from view" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from view" -s b -l branch -d 'The branch [default: the branch checked out here]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from view" -l threads -d 'With --json, answer the threads too, as {"artifact": ..., "threads": [...]}'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -s b -l branch -d 'The branch [default: the branch checked out here]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -s F -l body-file -d 'Read the comment from this file (- for standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -l quote -d 'The words of the artifact the thread is about' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -l version -d 'The version it is about [default: the newest; a reply\'s, its thread\'s]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -l reply-to -d 'Reply in the thread of this comment (its id, like ac_...)' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from comment" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from resolve" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from resolve" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from resolve" -l reopen -d 'Open the thread again'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from resolve" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from resolve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from resolve" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from open" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from open" -s b -l branch -d 'The branch [default: the branch checked out here]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from open" -l version -d 'The version to open [default: the newest]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from open" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from open" -l print -d 'Write the document\'s HTML (or the image) to standard output; open nothing'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from open" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from open" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from delete" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from delete" -s b -l branch -d 'The branch [default: the branch checked out here]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from delete" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from delete" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "add" -d 'Upload a document or image to a branch; a name already there gets a new version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a branch\'s artifacts, newest first, each with its newest version'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show an artifact, every version of it and its comment threads'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "comment" -d 'Start a comment thread on an artifact, or reply in one; without a body on a terminal, write it in your editor'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "resolve" -d 'Resolve a comment thread on an artifact, or reopen it with --reopen'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "open" -d 'Open an artifact in your browser: a document rendered, with its images, or an image'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete an artifact from a branch: every version, its files and its comment threads'
complete -c svc -n "__fish_svc_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "list" -d 'List a repo\'s releases, newest first (a draft by its making, the rest by publication)'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "create" -d 'Make a release: tag a commit on main, with a title, notes and (later) files'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "view" -d 'Show a release: title, commit, state, files and the commit\'s checks'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "edit" -d 'Change a release\'s title or notes'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "publish" -d 'Publish a draft release once its commit\'s checks are green; this makes and locks its tag'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "delete" -d 'Delete a release and its files; its tag stays'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "notes" -d 'Print a release\'s notes, or the notes a release at --target would get'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "upload" -d 'Upload files to a release; a file of the same name is replaced'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "download" -d 'Download a release\'s files, resuming where an earlier download stopped'
complete -c svc -n "__fish_svc_using_subcommand release; and not __fish_seen_subcommand_from list create view edit publish delete notes upload download help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from list" -l cursor -d 'Go on where a previous page ended (its next_cursor)' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -s t -l title -d 'Its title' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -s n -l notes -d 'Its notes, Markdown' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -s F -l notes-file -d 'Read the notes from this file (- for standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -l target -d 'The commit on main to release: a full sha, a short sha or HEAD (resolved by git here), or main [default: main\'s head]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -l draft -d 'Keep it a draft: no checks asked, no tag made until published'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -l generate-notes -d 'Append notes written from the merges since the last published release'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -l force -d 'Publish past failing, missing or unknown checks'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from view" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -s t -l title -d 'A new title ("" clears it)' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -s n -l notes -d 'New notes, Markdown' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -s F -l notes-file -d 'Read the new notes from this file (- for standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from publish" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from publish" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from publish" -l force -d 'Publish past failing, missing or unknown checks'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from publish" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from publish" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from publish" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from delete" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from delete" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from delete" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from notes" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from notes" -l target -d 'A commit on main for a release to be made: a full sha, a short sha or HEAD (resolved by git here), or main' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from notes" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from notes" -l generate -d 'Write the notes from the merges rather than show the release\'s own'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from notes" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from notes" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from notes" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from upload" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from upload" -l name -d 'The name on the release [default: the file\'s name] (one file only)' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from upload" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from upload" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from upload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from upload" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from download" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from download" -l dir -d 'The folder to download into [default: the current one]' -r -F
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from download" -s o -l output -d 'Write the one file to FILE' -r -F
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from download" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from download" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from download" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from download" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a repo\'s releases, newest first (a draft by its making, the rest by publication)'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make a release: tag a commit on main, with a title, notes and (later) files'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show a release: title, commit, state, files and the commit\'s checks'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change a release\'s title or notes'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "publish" -d 'Publish a draft release once its commit\'s checks are green; this makes and locks its tag'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a release and its files; its tag stays'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "notes" -d 'Print a release\'s notes, or the notes a release at --target would get'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "upload" -d 'Upload files to a release; a file of the same name is replaced'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "download" -d 'Download a release\'s files, resuming where an earlier download stopped'
complete -c svc -n "__fish_svc_using_subcommand release; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand deploy; and not __fish_seen_subcommand_from record list help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and not __fish_seen_subcommand_from record list help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand deploy; and not __fish_seen_subcommand_from record list help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand deploy; and not __fish_seen_subcommand_from record list help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand deploy; and not __fish_seen_subcommand_from record list help" -f -a "record" -d 'Record a deployment of a commit or release to an environment'
complete -c svc -n "__fish_svc_using_subcommand deploy; and not __fish_seen_subcommand_from record list help" -f -a "list" -d 'List a repo\'s recorded deployments, newest first'
complete -c svc -n "__fish_svc_using_subcommand deploy; and not __fish_seen_subcommand_from record list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -l sha -d 'The deployed commit: a full sha, or what git resolves here (HEAD, a short sha) [default: the release\'s commit, else main\'s head]' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -l release -d 'The published release deployed [default: the newest published release at the commit]' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -l url -d 'Where to see the deployment' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -s d -l description -d 'One line about it' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from record" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from list" -l cursor -d 'Go on where a previous page ended (its next_cursor)' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from help" -f -a "record" -d 'Record a deployment of a commit or release to an environment'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a repo\'s recorded deployments, newest first'
complete -c svc -n "__fish_svc_using_subcommand deploy; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -f -a "list" -d 'List a monorepo\'s hooks with their newest delivery (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -f -a "create" -d 'Make a hook (owners): POST each event to a URL, or start a CI build with --ci'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -f -a "delete" -d 'Delete a hook (owners); nothing more is sent to it'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -f -a "deliveries" -d 'List a hook\'s deliveries, newest first, the last 100 (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -f -a "redeliver" -d 'Send one delivery of a hook again, dead or not (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -f -a "replay" -d 'Send a hook\'s deliveries after an event seq again, oldest first (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and not __fish_seen_subcommand_from list create delete deliveries redeliver replay help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from list" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -l url -d 'Where a web hook POSTs the events (http or https)' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -s e -l event -d 'An event to send, again for each more [default: push]' -r -f -a "push\t''
branch.opened\t''
merged\t''
tag\t''"
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -l secret -d 'The signing key, 16 to 256 characters [default: one the server makes]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -l app -d 'The CI service, like buildkite' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -l pipeline -d 'The CI pipeline, <ci org>/<pipeline slug>' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -l ci -d 'Make a CI hook, which starts builds (needs --app and --pipeline)'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from delete" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from delete" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from delete" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from deliveries" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from deliveries" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from deliveries" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from deliveries" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from deliveries" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from redeliver" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from redeliver" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from redeliver" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from redeliver" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from redeliver" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from replay" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from replay" -l since -d 'Send again the deliveries of the events after this seq (0 for all)' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from replay" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from replay" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from replay" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a monorepo\'s hooks with their newest delivery (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make a hook (owners): POST each event to a URL, or start a CI build with --ci'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a hook (owners); nothing more is sent to it'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "deliveries" -d 'List a hook\'s deliveries, newest first, the last 100 (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "redeliver" -d 'Send one delivery of a hook again, dead or not (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "replay" -d 'Send a hook\'s deliveries after an event seq again, oldest first (owners)'
complete -c svc -n "__fish_svc_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "connect" -d 'Connect the monorepo to a Buildkite organization (owners)'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "disconnect" -d 'Disconnect a CI connection (owners): its builds and jobs go, the checks they posted stay'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "status" -d 'Show the monorepo\'s CI: its connections, the pipelines builds came from, each repo\'s required checks'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "builds" -d 'List the monorepo\'s builds, newest first'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "view" -d 'Show a build and its jobs'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "log" -d 'Print a job\'s log: its last MiB, as the CI service wrote it (escape codes and all)'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "start" -d 'Start a build of a branch\'s head on a pipeline (members)'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "rebuild" -d 'Build a build\'s commit again, as a new build of its pipeline'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "cancel" -d 'Cancel a build that has not finished'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "retry" -d 'Run a job of a build again, as a new job of the same build'
complete -c svc -n "__fish_svc_using_subcommand ci; and not __fish_seen_subcommand_from connect disconnect status builds view log start rebuild cancel retry help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from connect" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from connect" -l service -d 'The CI service' -r -f -a "buildkite\t''"
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from connect" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from connect" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from connect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from connect" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from disconnect" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from disconnect" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from disconnect" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from disconnect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from disconnect" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from status" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from status" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from status" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from builds" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from builds" -s p -l pipeline -d 'Only this pipeline\'s builds (its slug)' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from builds" -s L -l limit -d 'At most this many rows, read 30 a page' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from builds" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from builds" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from builds" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from builds" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from view" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from view" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from view" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from view" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from log" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from log" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from log" -s f -l follow -d 'Keep printing what the job writes until it finishes'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from log" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from log" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from start" -s R -l repo -d '<owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from start" -s b -l branch -d 'The branch to build [default: the branch checked out here]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from start" -l connection -d 'The CI connection whose pipeline it is, when the monorepo has several (svc ci status shows them)' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from start" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from start" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from rebuild" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from rebuild" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from rebuild" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from rebuild" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from rebuild" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from cancel" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from cancel" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from cancel" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from cancel" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from cancel" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from retry" -s R -l repo -d '<owner>/<monorepo> (a repo\'s full name works too) [default: the monorepo of the svc clone you are in]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from retry" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from retry" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from retry" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from retry" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "connect" -d 'Connect the monorepo to a Buildkite organization (owners)'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "disconnect" -d 'Disconnect a CI connection (owners): its builds and jobs go, the checks they posted stay'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the monorepo\'s CI: its connections, the pipelines builds came from, each repo\'s required checks'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "builds" -d 'List the monorepo\'s builds, newest first'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show a build and its jobs'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "log" -d 'Print a job\'s log: its last MiB, as the CI service wrote it (escape codes and all)'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start a build of a branch\'s head on a pipeline (members)'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "rebuild" -d 'Build a build\'s commit again, as a new build of its pipeline'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "cancel" -d 'Cancel a build that has not finished'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "retry" -d 'Run a job of a build again, as a new job of the same build'
complete -c svc -n "__fish_svc_using_subcommand ci; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand sync" -l dir -d 'A folder inside the clone [default: the current directory]' -r -F
complete -c svc -n "__fish_svc_using_subcommand sync" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand sync" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand sync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand sync" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand api" -s X -l method -d 'The HTTP method [default: GET, or POST when fields are given]' -r
complete -c svc -n "__fish_svc_using_subcommand api" -s f -l raw-field -d 'A string field KEY=VALUE (repeatable)' -r
complete -c svc -n "__fish_svc_using_subcommand api" -s F -l field -d 'A typed field KEY=VALUE: true, false, null and numbers become JSON values, @FILE (@- for standard input) a file\'s text, anything else a string (repeatable)' -r
complete -c svc -n "__fish_svc_using_subcommand api" -l input -d 'The request body, as is, from FILE (- for standard input)' -r
complete -c svc -n "__fish_svc_using_subcommand api" -s H -l header -d 'A request header "Name: value" (repeatable)' -r
complete -c svc -n "__fish_svc_using_subcommand api" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand api" -l paginate -d 'Follow next_cursor to the last page and print one answer with every page\'s items'
complete -c svc -n "__fish_svc_using_subcommand api" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand api" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand api" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand mcp" -s R -l monorepo -l repo -d '<owner>/<monorepo> [default: the monorepo of the svc clone you are in, else SVC_MONOREPO]' -r
complete -c svc -n "__fish_svc_using_subcommand mcp" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand mcp" -l allow-start-branch -d 'Offer `start_branch`, which launches a task agent on a new branch (always offered when SVC_AGENT_KIND=chat)'
complete -c svc -n "__fish_svc_using_subcommand mcp" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand meta; and not __fish_seen_subcommand_from sync help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand meta; and not __fish_seen_subcommand_from sync help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand meta; and not __fish_seen_subcommand_from sync help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand meta; and not __fish_seen_subcommand_from sync help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand meta; and not __fish_seen_subcommand_from sync help" -f -a "sync" -d 'Sync this clone\'s .svc/ with the monorepo\'s meta layer, both ways'
complete -c svc -n "__fish_svc_using_subcommand meta; and not __fish_seen_subcommand_from sync help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand meta; and __fish_seen_subcommand_from sync" -l dir -d 'A folder inside the clone [default: the current directory]' -r -F
complete -c svc -n "__fish_svc_using_subcommand meta; and __fish_seen_subcommand_from sync" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand meta; and __fish_seen_subcommand_from sync" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand meta; and __fish_seen_subcommand_from sync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand meta; and __fish_seen_subcommand_from sync" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand meta; and __fish_seen_subcommand_from help" -f -a "sync" -d 'Sync this clone\'s .svc/ with the monorepo\'s meta layer, both ways'
complete -c svc -n "__fish_svc_using_subcommand meta; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand completions" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand completions" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand completions" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand completions" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -f -a "run" -d 'Run the daemon in the foreground (what start and the service unit run)'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -f -a "start" -d 'Start the daemon in the background (does nothing if it runs)'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -f -a "stop" -d 'Stop the daemon and wait until it is gone'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -f -a "status" -d 'Is the daemon running, and how is each followed monorepo doing'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -f -a "install" -d 'Run the daemon at login: a systemd user unit (a launchd agent on macOS)'
complete -c svc -n "__fish_svc_using_subcommand daemon; and not __fish_seen_subcommand_from run start stop status install help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from run" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from run" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from run" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from start" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from start" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from stop" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from stop" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from stop" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from status" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from status" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from install" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from install" -l no-enable -d 'Only write the unit (or agent) file; do not enable or start it'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from install" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from install" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run the daemon in the foreground (what start and the service unit run)'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start the daemon in the background (does nothing if it runs)'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop the daemon and wait until it is gone'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "status" -d 'Is the daemon running, and how is each followed monorepo doing'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "install" -d 'Run the daemon at login: a systemd user unit (a launchd agent on macOS)'
complete -c svc -n "__fish_svc_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -f -a "add" -d 'Make a worktree for a branch of a repo (the branch is made from main when new)'
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -f -a "list" -d 'List this machine\'s branch worktrees'
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -f -a "remove" -d 'Remove a worktree (by id or path) and its report on the server'
complete -c svc -n "__fish_svc_using_subcommand worktree; and not __fish_seen_subcommand_from add list remove help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from add" -l path -d 'Where [default: <clone>.worktrees/<repo>/<branch>]' -r -F
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from add" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from add" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from list" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from list" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from remove" -l server -d 'The svc server, like https://svc.example.com [default: the one you logged in to]' -r
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from remove" -l force -d 'Remove it even with local changes'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from remove" -l json -d 'Print data as JSON, and errors as JSON on stderr'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "add" -d 'Make a worktree for a branch of a repo (the branch is made from main when new)'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "list" -d 'List this machine\'s branch worktrees'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove a worktree (by id or path) and its report on the server'
complete -c svc -n "__fish_svc_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "login" -d 'Sign this machine in with the device flow (a code you approve in a browser)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "logout" -d 'Revoke this machine\'s credential on the server, then forget it'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "auth" -d 'See and use this machine\'s sign-in'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "git-credential" -d 'Answer git\'s credential requests (configured by svc auth setup-git and svc clone)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "credential" -d 'List, make and revoke your credentials'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "monorepo" -d 'Make, list, view, rename, transfer and delete monorepos'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "org" -d 'Make, view and edit organizations; add, invite and remove their people'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "member" -d 'List, add, invite and remove a monorepo\'s people'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "admin" -d 'Manage the server\'s people (site admins only)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "issue" -d 'List, open, view, edit, close, reopen and comment on a monorepo\'s issues; hand one to an agent'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "agent" -d 'Launch coding agents on branches, follow their work, talk to them, stop them'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "label" -d 'List and manage the labels of a monorepo\'s issues (owners manage them)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "repo" -d 'Make, list, view and edit the repos of a monorepo'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "clone" -d 'Clone a monorepo: each repo\'s main at its path, the meta layer\'s files in .svc/'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "branch" -d 'List, make, view, diff, edit, merge and delete the branches of a repo'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "review" -d 'Approve, comment on or ask for changes on a branch; or --list its reviews'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "status" -d 'Post commit statuses, the checks that gate merges'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "checks" -d 'Show a commit\'s checks; exits 1 unless they pass the merge gate'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "artifact" -d 'Documents and images kept on a branch, versioned, with comment threads'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "release" -d 'Make, list, view, edit, publish and delete releases; upload and download their files'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "deploy" -d 'Record and list a repo\'s deployments (svc records them, it deploys nothing)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "hook" -d 'Make, list and delete a monorepo\'s hooks; see, redeliver and replay their deliveries (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "ci" -d 'Builds on the monorepo\'s CI service (Buildkite): connect, follow and steer builds'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "sync" -d 'Sync this clone\'s .svc/ with the monorepo\'s meta layer, both ways'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "api" -d 'Call any API route with your credential and print the JSON answer'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "mcp" -d 'Serve svc\'s read tools to a coding agent (Model Context Protocol over stdio)'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "meta" -d 'The older name of `svc sync`, still accepted'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "completions" -d 'Print the shell completion script for svc'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "daemon" -d 'Run, start, stop, inspect or install the svc daemon'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "worktree" -d 'Make, list and remove branch worktrees'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from login logout auth git-credential credential monorepo org member admin issue agent label repo clone branch review status checks artifact release deploy hook ci sync api mcp meta completions daemon worktree help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "status" -d 'Show the server, your login, this machine\'s credential and where it is stored'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "token" -d 'Print this machine\'s credential for the server (for scripts)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "setup-git" -d 'Make git ask svc for credentials for this server (and only this server)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from credential" -f -a "list" -d 'List your credentials (never their tokens)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from credential" -f -a "create" -d 'Make a credential for another machine or a cloud sandbox; its token is shown once'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from credential" -f -a "revoke" -d 'Revoke a credential; it stops working at once'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from monorepo" -f -a "create" -d 'Make a monorepo (or, with --plain, a plain git repository)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from monorepo" -f -a "list" -d 'List your monorepos: your own first, then by owner and name'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from monorepo" -f -a "view" -d 'Show a monorepo and its repos'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from monorepo" -f -a "rename" -d 'Rename a monorepo or move it to another owner; the old name keeps working'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from monorepo" -f -a "transfer" -d 'Move a monorepo to another owner, keeping its name; the old label keeps working'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from monorepo" -f -a "delete" -d 'Delete a monorepo with all its repos and records, for good'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "create" -d 'Make an organization, with you as its first owner'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "list" -d 'List the organizations you are in, with your role in each'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "view" -d 'Show an organization: its name, description, your role and how many people it has'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "edit" -d 'Change an organization\'s name, description or picture (owners only); what is not given stays'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "members" -d 'List an organization\'s people and their roles (its people only)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "add" -d 'Add someone to an organization by login, or change their role (owners only)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "remove" -d 'Remove someone from an organization (owners only); their access to its monorepos ends'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "invite" -d 'Invite someone to an organization by email (owners only)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "invites" -d 'List an organization\'s pending invites (withdraw one with svc org uninvite)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "uninvite" -d 'Withdraw a pending invite to an organization (owners only)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from org" -f -a "leave" -d 'Leave an organization; you lose its monorepos, but keep your own rows in them'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "list" -d 'List a monorepo\'s people, their roles and where their access comes from'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "add" -d 'Add someone to a monorepo by login, or change their role (owners only)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "remove" -d 'Remove someone from a monorepo (owners only); their access ends at once'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "invite" -d 'Invite someone to a monorepo by email (owners only)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "invites" -d 'List a monorepo\'s pending invites (owners only; withdraw one with svc member uninvite)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "uninvite" -d 'Withdraw a pending invite to a monorepo (owners only)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from admin" -f -a "user" -d 'Make, list, disable and enable the server\'s accounts'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "list" -d 'List issues, newest first: open ones unless told otherwise'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "create" -d 'Open an issue; without --body on a terminal, write it in your editor'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "view" -d 'Show an issue: its header, body and the latest of its timeline'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "edit" -d 'Change an issue\'s title, body, labels, assignees or project, all in one step'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "close" -d 'Close an issue, as completed unless said otherwise'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "reopen" -d 'Reopen a closed issue'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "comment" -d 'Comment on an issue'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "react" -d 'React to an issue or one of its comments, or take your reaction back'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "link" -d 'Link a branch to an issue, so that merging it closes the issue'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from issue" -f -a "agent" -d 'Launch a coding agent to address an open issue'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "launch" -d 'Launch a coding agent on a branch to carry out a task'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "list" -d 'List the monorepo\'s agent sessions, newest first'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "view" -d 'Show an agent session'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "log" -d 'Print an agent session\'s transcript; with --follow, as the agent works'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "send" -d 'Tell an agent session more: a follow-up to a task, or your next message in a chat'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "stop" -d 'Stop an agent session\'s run'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "review" -d 'Have an agent review a branch'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "chat" -d 'Ask the repository assistant in a new chat; or --list your chats'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "models" -d 'List the models agent sessions may run, the default marked'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from label" -f -a "list" -d 'List a monorepo\'s labels by name, with their open issues'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from label" -f -a "create" -d 'Make a label (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from label" -f -a "edit" -d 'Rename or recolour a label (owners); a rename moves it on every issue'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from label" -f -a "delete" -d 'Delete a label (owners); it leaves every issue that has it'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from repo" -f -a "create" -d 'Make an empty repo in a monorepo; the first push to main creates main'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from repo" -f -a "list" -d 'List a monorepo\'s repos'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from repo" -f -a "view" -d 'Show one repo'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from repo" -f -a "edit" -d 'Change a repo\'s settings (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from branch" -f -a "list" -d 'List a repo\'s branches: main first, then open and merged ones, newest first'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from branch" -f -a "create" -d 'Make a branch on the server, pointing at main\'s head or --from, without a new commit'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from branch" -f -a "view" -d 'Show a branch: state, head, mergeability, checks, its merge and reviews'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from branch" -f -a "diff" -d 'Show a branch\'s changes since it left main, like git diff main...branch'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from branch" -f -a "edit" -d 'Set a branch\'s title or description, which become its merge commit\'s message'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from branch" -f -a "merge" -d 'Merge a branch into main with a merge commit, once its checks pass'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from branch" -f -a "delete" -d 'Delete a branch on the server (never main)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from status" -f -a "post" -d 'Post a status on a commit; the latest per context counts in its checks'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "add" -d 'Upload a document or image to a branch; a name already there gets a new version'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "list" -d 'List a branch\'s artifacts, newest first, each with its newest version'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "view" -d 'Show an artifact, every version of it and its comment threads'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "comment" -d 'Start a comment thread on an artifact, or reply in one; without a body on a terminal, write it in your editor'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "resolve" -d 'Resolve a comment thread on an artifact, or reopen it with --reopen'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "open" -d 'Open an artifact in your browser: a document rendered, with its images, or an image'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "delete" -d 'Delete an artifact from a branch: every version, its files and its comment threads'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "list" -d 'List a repo\'s releases, newest first (a draft by its making, the rest by publication)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "create" -d 'Make a release: tag a commit on main, with a title, notes and (later) files'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "view" -d 'Show a release: title, commit, state, files and the commit\'s checks'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "edit" -d 'Change a release\'s title or notes'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "publish" -d 'Publish a draft release once its commit\'s checks are green; this makes and locks its tag'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "delete" -d 'Delete a release and its files; its tag stays'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "notes" -d 'Print a release\'s notes, or the notes a release at --target would get'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "upload" -d 'Upload files to a release; a file of the same name is replaced'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from release" -f -a "download" -d 'Download a release\'s files, resuming where an earlier download stopped'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from deploy" -f -a "record" -d 'Record a deployment of a commit or release to an environment'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from deploy" -f -a "list" -d 'List a repo\'s recorded deployments, newest first'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "list" -d 'List a monorepo\'s hooks with their newest delivery (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "create" -d 'Make a hook (owners): POST each event to a URL, or start a CI build with --ci'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "delete" -d 'Delete a hook (owners); nothing more is sent to it'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "deliveries" -d 'List a hook\'s deliveries, newest first, the last 100 (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "redeliver" -d 'Send one delivery of a hook again, dead or not (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "replay" -d 'Send a hook\'s deliveries after an event seq again, oldest first (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "connect" -d 'Connect the monorepo to a Buildkite organization (owners)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "disconnect" -d 'Disconnect a CI connection (owners): its builds and jobs go, the checks they posted stay'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "status" -d 'Show the monorepo\'s CI: its connections, the pipelines builds came from, each repo\'s required checks'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "builds" -d 'List the monorepo\'s builds, newest first'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "view" -d 'Show a build and its jobs'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "log" -d 'Print a job\'s log: its last MiB, as the CI service wrote it (escape codes and all)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "start" -d 'Start a build of a branch\'s head on a pipeline (members)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "rebuild" -d 'Build a build\'s commit again, as a new build of its pipeline'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "cancel" -d 'Cancel a build that has not finished'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from ci" -f -a "retry" -d 'Run a job of a build again, as a new job of the same build'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from meta" -f -a "sync" -d 'Sync this clone\'s .svc/ with the monorepo\'s meta layer, both ways'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "run" -d 'Run the daemon in the foreground (what start and the service unit run)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "start" -d 'Start the daemon in the background (does nothing if it runs)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "stop" -d 'Stop the daemon and wait until it is gone'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "status" -d 'Is the daemon running, and how is each followed monorepo doing'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "install" -d 'Run the daemon at login: a systemd user unit (a launchd agent on macOS)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "add" -d 'Make a worktree for a branch of a repo (the branch is made from main when new)'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "list" -d 'List this machine\'s branch worktrees'
complete -c svc -n "__fish_svc_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "remove" -d 'Remove a worktree (by id or path) and its report on the server'
