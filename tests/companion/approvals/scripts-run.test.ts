/** Which files a command line runs as code (companion/approvals/scripts-run.ts), read as the program would read it. */
import { describe, expect, it } from 'vitest';
import { scriptsNamedBy, unpinnedBy } from '../../../companion/approvals/scripts-run';

const cwd = '/w';

describe('scriptsNamedBy', () => {
  it.each([
    ['bash run.sh', { argv: ['bash', 'run.sh'] }, ['/w/run.sh']],
    ['the program as a path', { argv: ['./deploy.sh', '--prod'] }, ['/w/deploy.sh']],
    ['python -u x.py', { argv: ['python3', '-u', 'x.py', 'arg.py'] }, ['/w/x.py']],
    ['python3.12 -W ignore x.py', { argv: ['python3.12', '-W', 'ignore', 'x.py'] }, ['/w/x.py']],
    ['python -c code names no file', { argv: ['python', '-c', 'print(1)', 'x.py'] }, []],
    ['python -m module: its file or package in the cwd, which Python looks in first', { argv: ['python', '-m', 'pytest', 'x.py'] }, ['/w/pytest.py', '/w/pytest/__init__.py', '/w/pytest/__main__.py']],
    ['python -mpkg.cli: the packages on the way too', { argv: ['python3', '-mpkg.cli'] }, ['/w/pkg/__init__.py', '/w/pkg/cli.py', '/w/pkg/cli/__init__.py', '/w/pkg/cli/__main__.py']],
    ['python -m $MOD: known only when it runs', { shell: 'python -m $MOD' }, []],
    ['node --import x y.js: both', { argv: ['node', '--import', './x.mjs', 'y.js'] }, ['/w/x.mjs', '/w/y.js']],
    ['node -r=x and --require=y', { argv: ['node', '--require=./h.cjs', 'app/main.js'] }, ['/w/h.cjs', '/w/app/main.js']],
    ['node -e names no script', { argv: ['node', '-e', 'x', 'y.js'] }, []],
    ['sh -c "./x.sh"', { argv: ['sh', '-c', './x.sh'] }, ['/w/x.sh']],
    ['bash -ec "bash y.sh"', { argv: ['bash', '-ec', 'bash y.sh'] }, ['/w/y.sh']],
    ['bash -o pipefail x.sh (a program by path is named too; only files in the roots are pinned)', { argv: ['/bin/bash', '-o', 'pipefail', 'x.sh'] }, ['/bin/bash', '/w/x.sh']],
    ['NAME=value in front (process.run env)', { argv: ['DEBUG=1', 'bash', 'x.sh'] }, ['/w/x.sh']],
    ['env wrapper', { argv: ['env', '-i', 'A=1', 'perl', '-w', 't.pl'] }, ['/w/t.pl']],
    // a wrapper's option that takes a value: the value is not the program
    ['nice -n 10 bash x.sh', { argv: ['nice', '-n', '10', 'bash', 'x.sh'] }, ['/w/x.sh']],
    ['nice -n10 and --adjustment=5', { shell: 'nice -n10 nice --adjustment=5 bash x.sh' }, ['/w/x.sh']],
    ['timeout 60 python x.py: the duration is not the program', { argv: ['timeout', '60', 'python3', 'x.py'] }, ['/w/x.py']],
    ['timeout -k 5 --signal KILL 1m bash x.sh', { shell: 'timeout -k 5 --signal KILL 1m bash x.sh' }, ['/w/x.sh']],
    ['env -u NAME bash x.sh', { argv: ['env', '-u', 'HOME', 'bash', 'x.sh'] }, ['/w/x.sh']],
    ['env -C dir bash x.sh: env changes into dir first', { argv: ['env', '-C', 'tools', 'bash', 'go.sh'] }, ['/w/tools/go.sh']],
    ['env --chdir=dir ./x.sh', { shell: 'env --chdir=tools ./go.sh' }, ['/w/tools/go.sh']],
    ['env -C dir bash < x.sh: the shell opens x.sh before env moves', { shell: 'env -C tools bash < in.sh' }, ['/w/in.sh']],
    ['env -S "bash -e" x.sh: the split string is the command', { argv: ['env', '-S', 'bash -e', 'x.sh'] }, ['/w/x.sh']],
    ['stdbuf -oL -e 0 and time -f fmt', { shell: 'stdbuf -oL -e 0 time -f %e bash x.sh' }, ['/w/x.sh']],
    ['env -C $DIR bash x.sh: where it runs is known only when it runs', { shell: 'env -C $DIR bash x.sh' }, []],
    // variables the call sets that name what runs
    ['the program on the PATH the call sets (an empty entry is the folder itself)', { argv: ['PATH=tools::/usr/bin', 'git', 'status'] }, ['/w/tools/git', '/w/git', '/usr/bin/git']],
    ['env PATH=dir tool', { shell: 'env PATH=/w/bin tool' }, ['/w/bin/tool']],
    ['a PATH exported (shell.exec\'s env) holds for every command after it', { shell: "export PATH='/w/bin'; true; cd sub && tool" }, ['/w/bin/true', '/w/bin/tool']],
    ['PATH= alone sets the shell\'s PATH for what follows', { shell: 'PATH=bin; tool' }, ['/w/bin/tool']],
    ['export PATH=./bin:$PATH: the part written out is read', { shell: 'export PATH=./bin:$PATH; tool' }, ['/w/bin/tool', '/w/tool']],
    ['a program by path is not looked up on PATH', { argv: ['PATH=/w/bin', './x.sh'] }, ['/w/x.sh']],
    ['NODE_OPTIONS preloads, read as node reads its options', { argv: ['NODE_OPTIONS=--max-old-space-size=100 --require ./pre.js --import=./i.mjs', 'npm', 'test'] }, ['/w/pre.js', '/w/i.mjs', '/w/package.json']],
    ['BASH_ENV', { argv: ['BASH_ENV=./x.sh', 'bash', '-c', 'echo'] }, ['/w/x.sh']],
    ['LD_PRELOAD by a path (a name is looked up where the system keeps its libraries)', { argv: ['LD_PRELOAD=./x.so libc.so.6', 'ls'] }, ['/w/x.so']],
    ['deno run with permissions', { argv: ['deno', 'run', '--allow-read', 'main.ts'] }, ['/w/main.ts']],
    ['deno test is a subcommand', { argv: ['deno', 'test'] }, []],
    ['bun run x.ts', { argv: ['bun', 'run', 'x.ts'] }, ['/w/x.ts']],
    ['ruby -I lib x.rb', { argv: ['ruby', '-I', 'lib', 'x.rb'] }, ['/w/x.rb']],
    ['ruby -C dir x.rb: ruby changes into dir before it reads x.rb', { argv: ['ruby', '-C', 'sub', 'x.rb'] }, ['/w/sub/x.rb']],
    ['ruby -Cdir -r ./pre x.rb: the preload is read there too', { argv: ['ruby', '-Csub', '-r', './pre.rb', 'x.rb'] }, ['/w/sub/pre.rb', '/w/sub/x.rb']],
    ['bun --cwd dir run x.ts', { argv: ['bun', '--cwd', 'app', 'run', 'x.ts'] }, ['/w/app/x.ts']],
    ['bun --cwd=dir x.ts', { argv: ['bun', '--cwd=app', 'x.ts'] }, ['/w/app/x.ts']],
    ['ruby -C $DIR x.rb: where it runs is known only when it runs', { shell: 'ruby -C $DIR x.rb' }, []],
    ['php -f x.php', { argv: ['php', '-d', 'a=b', '-f', 'x.php'] }, ['/w/x.php']],
    ['pwsh -File x.ps1', { argv: ['pwsh', '-NoProfile', '-File', 'x.ps1'] }, ['/w/x.ps1']],
    ['make reads the first makefile there is: all three are pinned', { argv: ['make', 'all'] }, ['/w/GNUmakefile', '/w/makefile', '/w/Makefile']],
    ['make -C dir -f x.mk: the makefile in the folder make changes into', { argv: ['make', '-C', 'sub', '-f', 'x.mk', 'all'] }, ['/w/sub/x.mk']],
    ['make --directory=a -Cb --file=y.mk', { argv: ['make', '--directory=a', '-Cb', '--file=y.mk'] }, ['/w/a/b/y.mk']],
    ['make -f $MK: known only when it runs', { shell: 'make -f $MK' }, []],
    ['npm test: the package.json whose script runs', { argv: ['npm', 'test'] }, ['/w/package.json']],
    ['npm --prefix app run build', { argv: ['npm', '--prefix', 'app', 'run', 'build'] }, ['/w/app/package.json']],
    ['pnpm -C app t', { shell: 'pnpm -C app t' }, ['/w/app/package.json']],
    ['yarn run lint, after cd', { shell: 'cd web && yarn run lint' }, ['/w/web/package.json']],
    ['npm ci runs the package\'s install scripts', { argv: ['npm', 'ci', '--no-audit'] }, ['/w/package.json']],
    ['npm install left-pad: not the package\'s own install, not pinned', { argv: ['npm', 'install', 'left-pad'] }, []],
    ['npm view runs no script: not pinned', { argv: ['npm', 'view', 'x'] }, []],
    ['npm run $X: known only when it runs', { shell: 'npm run $X' }, []],
    ['shell: cd moves the cwd', { shell: 'cd tools && bash go.sh; ./x.sh' }, ['/w/tools/go.sh', '/w/tools/x.sh']],
    ['shell: a script on each line', { shell: 'bash a.sh\npython b.py | cat > out.txt' }, ['/w/a.sh', '/w/b.py']],
    ['shell: standard input of an interpreter', { shell: 'bash < in.sh' }, ['/w/in.sh']],
    ['shell: source and .', { shell: 'source env.sh && . ./more.sh' }, ['/w/env.sh', '/w/more.sh']],
    ['shell: a variable is not known until it runs', { shell: 'bash $SCRIPT' }, []],
  ])('%s', (_name, command, expected) => {
    expect(scriptsNamedBy({ cwd, ...command })).toEqual(expected);
  });
});

describe('unpinnedBy: what a command runs that its card cannot pin, as written', () => {
  it.each([
    ['bash $SCRIPT', { shell: 'bash $SCRIPT' }, ['$SCRIPT']],
    ['VAR=x bash "$VAR" (the shell expands $VAR before the assignment applies)', { shell: 'VAR=x bash "$VAR"' }, ['$VAR']],
    ['a glob as the script', { shell: 'sh *.sh' }, ['*.sh']],
    ['a backquoted script', { shell: 'bash `ls x*`' }, ['`ls']],
    ['the program itself', { shell: '$RUNNER --fast' }, ['$RUNNER']],
    ['ruby -C "$DIR" x.rb', { shell: 'ruby -C "$DIR" x.rb' }, ['$DIR']],
    ['sh -c "$CODE"', { shell: 'sh -c "$CODE"' }, ['$CODE']],
    ['what follows cd $X', { shell: 'cd $X && bash go.sh' }, ['cd $X']],
    ['make -f $MK', { shell: 'make -f $MK' }, ['$MK']],
    ['env -C "$DIR" bash x.sh', { shell: 'env -C "$DIR" bash x.sh' }, ['$DIR']],
    ['export PATH=./bin:$PATH; tool: the rest of the PATH tool is looked up on', { shell: 'export PATH=./bin:$PATH; tool' }, ['$PATH']],
    ['npm run $TASK', { shell: 'npm run $TASK' }, ['$TASK']],
    ['pwsh -Command', { argv: ['pwsh', '-NoProfile', '-Command', './x.ps1'] }, ['-Command']],
    ['pwsh -EncodedCommand', { argv: ['pwsh', '-EncodedCommand', 'ZQBjAGgAbwA='] }, ['-EncodedCommand']],
    ['a command whose scripts are all named: nothing', { shell: 'cd tools && bash go.sh; make -C sub; npm test' }, []],
    ['bash -c with its code on the card: nothing', { argv: ['bash', '-c', 'echo $HOME'] }, []],
    ['an argument that is a variable, after the script: nothing', { shell: 'bash go.sh "$@"' }, []],
  ])('%s', (_name, command, expected) => {
    expect(unpinnedBy({ cwd, ...command })).toEqual(expected);
  });
});
