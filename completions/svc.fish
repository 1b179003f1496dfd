# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_svc_global_optspecs
    string join \n h/help V/version
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

complete -c svc -n "__fish_svc_needs_command" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_needs_command" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_needs_command" -f -a "completions" -d 'Print the shell completion script for svc'
complete -c svc -n "__fish_svc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c svc -n "__fish_svc_using_subcommand completions" -s h -l help -d 'Print help'
complete -c svc -n "__fish_svc_using_subcommand completions" -s V -l version -d 'Print version'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from completions help" -f -a "completions" -d 'Print the shell completion script for svc'
complete -c svc -n "__fish_svc_using_subcommand help; and not __fish_seen_subcommand_from completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
