/* base/i18n_zh.c: the Chinese catalogue: every learner-facing English text
 * marked _(), N_() or P_() (for P_ the plural form) and its translation.
 * This file: the commands' texts (results, cudojo run/list/progress/hint/
 * debug, their errors and --help) and the engine's words; the workbench's
 * screens are in i18n_zh_screens.c, a run's message formats (checks,
 * findings, summaries) in i18n_zh_run.c.
 *
 * Terms follow lessons/GLOSSARY.zh-CN.md (its "Workbench words" section for
 * verdicts and statuses). A translation keeps the English's printf
 * conversions in the same order, and its leading or trailing newline;
 * tests/base/test_i18n.c checks both and that no marked string is missing
 * (or given twice across the files). Grouped by where the text is shown;
 * order does not matter to lookups. */
#include "base/i18n.h"

const I18nEntry I18N_ZH[] = {
    /* the learner commands' summaries and help (app/cmd_init/watch/submit/reset/exec.c) */
    {"make a workspace: editable copies of every exercise + progress db",
     "建一个工作区：每个练习一份可编辑的副本，外加进度数据库"},
    {"Makes DIR (default: the current directory) a workspace: one folder per chapter\nwith the starter of every exercise, and .cudojo/progress.db. Running it again\nadds exercises that are new in the course and never overwrites your files.\n",
     "把 DIR（默认：当前目录）变成一个工作区：每章一个文件夹，里面是每个练习的起始代码，\n外加 .cudojo/progress.db。再运行一次会加入课程里新增的练习，绝不会覆盖你的文件。\n"},
    {"re-run an exercise on every save of your file",
     "每次保存文件时重新运行练习"},
    {"Runs EXERCISE (default: the first one you have not passed) and again every\ntime you save its file; after a pass it moves on to the next exercise.\nCtrl-C stops a run in progress; a second Ctrl-C quits.\nEXERCISE may be a file (see cudojo run --help): a file other than your copy,\nor --file F, is run and watched instead, and not recorded.\nWith --json: JSON Lines, one object per line: {\"event\": \"result\", \"exercise\",\n\"file\", \"result\"} after each run, \"watching\" while it waits for a save,\n\"next\" when it moves on, \"done\" when nothing is left.\n",
     "运行 EXERCISE（默认：你还没通过的第一个练习），之后每次保存它的文件都再运行一次；\n通过后转到下一个练习。\nCtrl-C 停止正在进行的运行；再按一次 Ctrl-C 退出。\nEXERCISE 也可以是一个文件（见 cudojo run --help）：不是你的副本的文件，或 --file F，\n会代替副本被运行和监视，且不记录。\n使用 --json 时：JSON Lines，每行一个对象：每次运行后是 {\"event\": \"result\", \"exercise\",\n\"file\", \"result\"}，等待保存时是 \"watching\"，转到下一个练习时是 \"next\"，\n什么都不剩时是 \"done\"。\n"},
    {"learners: one archive of your work for your instructor",
     "学员用：把你的作业打成一个归档交给讲师"},
    {"Writes one archive (tar + zstd) of this workspace for `cudojo grade`: your copy\nof every exercise file, your progress record, and a manifest with your name,\nthe workspace's id, the course version, the time and each file's SHA-256.\nNothing else from your machine goes in. The archive is written to a temporary\nfile and renamed, so a failure leaves nothing half-written.\nOptions:\n  -o, --output FILE   where to write it (default: NAME-YYYY-MM-DD-HHMM.cudojo.tar.zst\n                      in the current directory)\n  --student NAME      your name as the instructor knows it (default:\n                      $CUDOJO_STUDENT, else your login name); at most 64 bytes,\n                      no '/'\n  --json              the manifest and the archive's path as JSON\nExit status: 0 written, 2 when it could not be (nothing is left behind).\n",
     "为 `cudojo grade` 写出这个工作区的一个归档（tar + zstd）：你的每个练习文件的副本、\n你的进度记录，以及一份清单，写着你的名字、工作区的 id、课程版本、时间和每个文件的 SHA-256。\n你机器上的其他东西都不会放进去。归档先写到临时文件再改名，所以失败时不会留下写了一半的文件。\n选项：\n  -o, --output FILE   写到哪里（默认：当前目录下的 NAME-YYYY-MM-DD-HHMM.cudojo.tar.zst）\n  --student NAME      讲师所知道的你的名字（默认：$CUDOJO_STUDENT，否则是你的登录名）；\n                      最多 64 字节，不能含 '/'\n  --json              以 JSON 输出清单和归档路径\n退出状态：0 表示已写出，2 表示没能写出（不会留下任何东西）。\n"},
    {"put the starter back (your file is kept as a backup)",
     "放回起始代码（你的文件会留一份备份）"},
    {"Copies the starter over your file after saving your version under\n.cudojo/backups/. Your recorded attempts are kept.\n",
     "先把你的版本保存到 .cudojo/backups/，再用起始代码覆盖你的文件。你记录下来的尝试会保留。\n"},
    {"run any nvcc-built CUDA program on the GPU or the emulator runtime",
     "在 GPU 或模拟器运行时上运行任意用 nvcc 构建的 CUDA 程序"},
    {"Runs PROGRAM (built with `nvcc -cudart shared`) with ARGS, in the current\ndirectory with your environment and stdin. On a GPU it uses NVIDIA's runtime\nand cudojo records its calls and a CUPTI timeline; without one (or with\n--backend=emu) it runs on cudojo's emulator runtime, which checks every\nkernel: out-of-bounds accesses, races, barriers, uninitialised reads, with\nthe program's file:line, block and thread. Its stdout and stderr pass\nthrough as it runs; then the findings and a summary (calls per function,\nkernels with their modeled or measured time, how it ended) go to stderr.\ncudojo's options go before PROGRAM; everything after it is the program's.\nOptions:\n  --backend=B         cuda, emu or auto (default: the GPU when one works)\n  --trace FILE.json   write the program's timeline as Chrome trace JSON\n                      (Perfetto, chrome://tracing); a modeled one says so\n  --json              one JSON document on stdout instead: exit status,\n                      stdout and stderr (captured), calls, kernels,\n                      timeline, findings\n  --timeout S         kill the program (and its process group) after S\n                      seconds (default: no limit)\n  --devices N         emulated GPUs the program sees (default 1)\n  --emu-threads=N     host threads the emulator uses (default: all cores)\n  --profile=ncu       on a GPU, run it under Nsight Compute (ncu) with\n                      cudojo's metrics (time, occupancy achieved and\n                      theoretical, its limits, registers) and list its\n                      launches after its output\n  --profile=nsys      likewise under Nsight Systems: time per kernel and copy\n  --sanitizer=TOOL    on a GPU, run it under compute-sanitizer (memcheck,\n                      racecheck, initcheck, synccheck) and list its errors\n                      (on the emulator runtime --profile and --sanitizer\n                      are left out: its own checks stand in)\nExit status: the program's own; 128+N when signal N killed it, 124 when\nthe timeout did, 130 when interrupted, 127 when PROGRAM is not found, 126\nwhen it cannot be run, 125 when cudojo cannot run it here (e.g. the\nemulator runtime is not built), 2 for a usage error.\n",
     "在当前目录下、用你的环境变量和标准输入运行 PROGRAM（用 `nvcc -cudart shared` 构建）及其参数 ARGS。\n在 GPU 上它使用 NVIDIA 的运行时，cudojo 记录它的调用和 CUPTI 时间线；没有 GPU 时（或使用\n--backend=emu 时）它在 cudojo 的模拟器运行时上运行，后者检查每个核函数：越界访问、竞争、屏障、\n未初始化的读取，并给出程序的文件:行、线程块和线程。程序的标准输出和标准错误边运行边输出；\n之后发现的问题和一份总结（每个函数的调用次数、核函数及其模型估算或实测的时间、程序如何结束）\n写到标准错误。cudojo 的选项放在 PROGRAM 之前；PROGRAM 之后的一切都属于程序。\n选项：\n  --backend=B         cuda、emu 或 auto（默认：有可用的 GPU 时用 GPU）\n  --trace FILE.json   把程序的时间线写成 Chrome trace JSON（Perfetto、chrome://tracing）；\n                      模型估算的时间线会注明\n  --json              改为在标准输出上输出一个 JSON 文档：退出状态、（捕获的）标准输出和\n                      标准错误、调用、核函数、时间线、发现的问题\n  --timeout S         S 秒后杀掉程序（及其进程组）（默认：不限时）\n  --devices N         程序能看到的模拟 GPU 数量（默认 1）\n  --emu-threads=N     模拟器使用的主机线程数（默认：所有 CPU 核）\n  --profile=ncu       在 GPU 上用 Nsight Compute（ncu）运行它，带上 cudojo 的指标（时间、\n                      实际和理论占用率及其限制因素、寄存器），并在程序输出之后列出它的各次启动\n  --profile=nsys      同样，用 Nsight Systems：每个核函数和每次拷贝的时间\n  --sanitizer=TOOL    在 GPU 上用 compute-sanitizer（memcheck、racecheck、initcheck、synccheck）\n                      运行它并列出它报告的错误（在模拟器运行时上不使用 --profile 和 --sanitizer：\n                      由模拟器自己的检查代替）\n退出状态：程序自己的；被信号 N 杀死时为 128+N，超时时为 124，被中断时为 130，找不到 PROGRAM\n时为 127，无法运行它时为 126，cudojo 在这里无法运行它时为 125（例如模拟器运行时没有构建），\n用法错误时为 2。\n"},
    /* verdicts and a run's result (base/result.c) */
    {"pass", "通过"},
    {"fail", "未通过"},
    {"compile error", "编译错误"},
    {"runtime error", "运行时错误"},
    {"timed out", "超时"},
    {"crashed", "崩溃"},
    {"cancelled", "已取消"},
    {"the exercise itself is broken", "练习本身有错误"},
    {"PASS", "通过"},
    {"PASS (fast)", "通过（达到速度目标）"},
    {"FAIL", "未通过"},
    {": %s", "：%s"},
    {"index", "下标"},
    {"got", "实际值"},
    {"want", "期望值"},
    {"program output", "程序输出"},
    {"device printf", "设备端 printf"},
    {"What Nsight Compute measured (after the verdict)", "Nsight Compute 测得的数据（判定之后）"},
    {"What Nsight Systems measured (after the verdict)", "Nsight Systems 测得的数据（判定之后）"},
    {"What the profiler measured (after the verdict)", "性能分析器测得的数据（判定之后）"},
    {"What compute-sanitizer found (after the verdict)", "compute-sanitizer 发现的问题（判定之后）"},
    /* what runs after a verdict shown before it (base/result.c's run_result_after_doing) */
    {"profiling after the verdict…", "判定之后正在做性能分析…"},
    {"checking with compute-sanitizer after the verdict…", "判定之后正在用 compute-sanitizer 检查…"},
    {"profiling and checking with compute-sanitizer after the verdict…",
     "判定之后正在做性能分析并用 compute-sanitizer 检查…"},

    /* exercise status words (list, progress, the map) */
    {"passed fast", "快速通过"},
    {"passed", "已通过"},
    {"failing", "未通过"},
    {"not started", "未开始"},

    /* cudojo run / watch / hint */
    {"running %s…\n", "正在运行 %s…\n"},
    {"\nNext: cudojo run %s\n", "\n下一个：cudojo run %s\n"},
    {"\nStuck? `cudojo hint %s`\n", "\n卡住了？试试 `cudojo hint %s`\n"},
    {"\nTimeline%s written to %s (open it at https://ui.perfetto.dev or chrome://tracing)\n",
     "\n时间线%s已写入 %s（用 https://ui.perfetto.dev 或 chrome://tracing 打开）\n"},
    {" (modeled)", "（模型估算）"},
    {"Every exercise passed. Well done! (`cudojo watch EXERCISE` to redo one)",
     "所有练习都已通过，做得好！（用 `cudojo watch 练习名` 重做其中一个）"},
    {"That was the last exercise. Well done!", "这是最后一个练习。做得好！"},
    {"\nPassed! Next up: %s\n", "\n通过！下一个：%s\n"},
    {"\nWatching %s — save to re-run, Ctrl-C to quit.\n", "\n正在监视 %s —— 保存即重新运行，Ctrl-C 退出。\n"},
    {"%s has no hints.\n", "%s 没有提示。\n"},
    {"%sHint %d/%d:%s %s\n", "%s提示 %d/%d：%s %s\n"},
    {"(that was the last hint)", "（这是最后一条提示）"},

    /* cudojo list */
    {"Workspace %s (your files are here)\n\n", "工作区 %s（你的文件在这里）\n\n"},
    {"  (%d attempts)", "  （已尝试 %d 次）"},
    {"   %s← next: %s%s", "   %s← 下一个：%s%s"},
    {"%d of %d exercises passed.", "已通过 %d/%d 个练习。"},
    {" Next: cudojo run %s", " 下一个：cudojo run %s"},

    /* cudojo progress */
    {"%s is this workspace's own progress: nothing to merge.\n", "%s 就是本工作区自己的进度：无需合并。\n"},
    {"Merged %s (workspace %s): ", "已合并 %s（工作区 %s）："},
    {"without a uuid", "无 uuid"},
    {"%d attempts added", "新增 %d 次尝试"},
    {", %d already here, ", "，%d 次已存在，"},
    {"%d hints newly taken", "新查看 %d 条提示"},
    {", %d exercises in it.\n", "，其中含 %d 个练习。\n"},
    {"exercise", "练习"},
    {"status", "状态"},
    {"attempts", "尝试次数"},
    {"first pass", "首次通过"},
    {"best", "最佳"},
    {"hints", "提示"},
    {"%d of %d exercises passed, ", "已通过 %d/%d 个练习，"},
    {"%d attempts, ", "尝试 %d 次，"},
    {"%.1f s spent running.\n", "运行共用时 %.1f 秒。\n"},

    /* cudojo list / progress / hint / run / debug: errors and --help (app/cmd_*.c; app/cli.c shows _(summary)) */
    {"cudojo list: takes no arguments\n", "cudojo list：不接受参数\n"},
    {"chapters and exercises with your status", "各章节和练习，以及你的完成状态"},
    {"Lists every chapter and exercise with its status (not started, failing,\npassed) and the next exercise to do.\n",
     "列出每一章和每个练习及其状态（未开始、未通过、已通过），\n以及下一个要做的练习。\n"},
    {"no such file", "没有这个文件"},
    {"this folder is not a cudojo workspace (no .cudojo/progress.db)", "这个文件夹不是 cudojo 工作区（没有 .cudojo/progress.db）"},
    {"cudojo progress: unexpected '%s' (only --merge FILE is taken)\n", "cudojo progress：多余的 '%s'（只接受 --merge FILE）\n"},
    {"your progress: attempts, passes, best times; merge another workspace's", "你的进度：尝试、通过、最好成绩；合并另一个工作区的进度"},
    {"Shows, per chapter and exercise, attempts, first pass, best kernel time and\n"
     "hints taken. With --json, the whole record (for instructors).\n"
     "Options:\n"
     "  --merge FILE        join another workspace's progress into this one (your lab\n"
     "                      machine's and your laptop's): FILE is its progress.db, its\n"
     "                      folder, a `cudojo progress --json` export or a `cudojo\n"
     "                      submit` archive. Its attempts and hints are added; one\n"
     "                      already here is not added twice, so merging again changes\n"
     "                      nothing. FILE is only read. May be given several times.\n"
     "Exit status: 0 done, 1 when a FILE could not be merged (the others are), 2 for\n"
     "a usage error.\n",
     "按章节和练习显示尝试次数、首次通过时间、最快的核函数时间和查看过的提示。\n"
     "加 --json 输出完整记录（供教师使用）。\n"
     "选项：\n"
     "  --merge FILE        把另一个工作区的进度并入这个工作区（例如实验室机器和\n"
     "                      笔记本上的）：FILE 可以是它的 progress.db、它的文件夹、\n"
     "                      `cudojo progress --json` 的导出或 `cudojo submit` 的\n"
     "                      归档。它的尝试和提示会被加进来；已经有的不会重复添加，\n"
     "                      所以再合并一次不会改变任何东西。FILE 只会被读取。\n"
     "                      可以给多次。\n"
     "退出状态：0 完成，1 有 FILE 没能合并（其余的已合并），2 用法错误。\n"},
    {"cudojo hint: expects one EXERCISE\n", "cudojo hint：需要一个 EXERCISE（练习）\n"},
    {"show the next hint (recorded)", "显示下一条提示（会被记录）"},
    {"Shows the hints you have already seen plus the next one.\n", "显示你已经看过的提示，再加下一条。\n"},
    {"cudojo run: %s needs a value (see cudojo run --help)\n", "cudojo run：%s 需要一个值（见 cudojo run --help）\n"},
    {"cudojo run: --explain %s: expects a source line number or 'worst'\n", "cudojo run：--explain %s：需要源代码行号或 'worst'\n"},
    {"cudojo %s: --block %s: expects X or X,Y or X,Y,Z\n", "cudojo %s：--block %s：需要 X、X,Y 或 X,Y,Z\n"},
    {"cudojo %s: --warp %s: expects a warp 0-31\n", "cudojo %s：--warp %s：需要线程束编号 0-31\n"},
    {"cudojo %s: --param needs NAME=VALUE (got '%s')\n", "cudojo %s：--param 需要 NAME=VALUE（收到的是 '%s'）\n"},
    {"cudojo %s: --trace needs a file name (e.g. --trace timeline.json)\n",
     "cudojo %s：--trace 需要一个文件名（例如 --trace timeline.json）\n"},
    {"cudojo %s: unknown option '%s' (see `cudojo %s --help`)\n", "cudojo %s：未知选项 '%s'（见 `cudojo %s --help`）\n"},
    {"cudojo %s: %s needs a value (see cudojo %s --help)\n", "cudojo %s：%s 需要一个值（见 cudojo %s --help）\n"},
    /* an EXERCISE that is a file (app/cmd_args.c, cmd_watch.c, cmd_debug.c) */
    {"cudojo %s: %s defines exercise %s; using your copy %s\n", "cudojo %s：%s 定义了练习 %s；使用你的副本 %s\n"},
    {"cudojo %s: %s is not your copy of %s (%s): stepping through it instead\n",
     "cudojo %s：%s 不是你的 %s 副本（%s）：改为单步执行它\n"},
    {"cudojo %s: %s is not your copy of %s (%s): running it instead, not recorded (as --file does)\n",
     "cudojo %s：%s 不是你的 %s 副本（%s）：改为运行它，不记录（和 --file 一样）\n"},
    {"cudojo watch: --file goes with an EXERCISE\n", "cudojo watch：--file 要和一个 EXERCISE（练习）一起用\n"},
    {"cudojo watch: expects at most one EXERCISE\n", "cudojo watch：最多接受一个 EXERCISE（练习）\n"},
    {"cudojo reset: %s is not your copy of %s (%s), and reset only puts the starter back in your copy: cudojo reset %s\n",
     "cudojo reset：%s 不是你的 %s 副本（%s），而 reset 只会把起始代码放回你的副本：cudojo reset %s\n"},
    {"cudojo reset: expects one EXERCISE\n", "cudojo reset：需要一个 EXERCISE（练习）\n"},
    {"%s is the starter again. Your version was saved as %s\n", "%s 又是起始代码了。你的版本已保存为 %s\n"},
    {"%s is the starter again.\n", "%s 又是起始代码了。\n"},
    {"cudojo debug: %s is not your copy of %s; --solution debugs the solution: give one of them\n",
     "cudojo debug：%s 不是你的 %s 副本；--solution 调试的是参考答案：两者只能给一个\n"},
    {"cudojo run: --block and --warp go with --explain\n", "cudojo run：--block 和 --warp 要和 --explain 一起用\n"},
    {"cudojo run: %s is a whole program; --explain maps the accesses of kernel exercises (try cudojo exec for programs)\n",
     "cudojo run：%s 是完整程序；--explain 只画核函数练习的访问图（完整程序请试试 cudojo exec）\n"},
    {"cudojo run: expects one EXERCISE (see `cudojo list`)\n", "cudojo run：需要一个 EXERCISE（练习，见 `cudojo list`）\n"},
    {"cudojo run: --explain and --trace exclude each other\n", "cudojo run：--explain 和 --trace 不能同时使用\n"},
    {"cudojo run: --trace %s: it is %s; the trace replaces only a regular file\n", "cudojo run：--trace %s：它是%s；跟踪文件只会替换普通文件\n"},
    {"cudojo run: --trace: %s\n", "cudojo run：--trace：%s\n"},
    {"compile, run and check one exercise; record the attempt", "编译、运行并检查一个练习；记录这次尝试"},
    {"Compiles your copy of EXERCISE, runs it on the GPU or the emulator, checks\n"
     "the results against the CPU reference and records the attempt.\n"
     "EXERCISE is an exercise id (vector-add) or a file: your copy\n"
     "(hello-gpu/vector-add.cu) is the same as the id; another file whose name is\n"
     "an exercise's (solutions/vector-add.cu) runs instead of your copy, as --file\n"
     "runs it, and is not recorded.\n"
     "Options:\n"
     "  --param K=V         override an exercise parameter (e.g. --param n=1000)\n"
     "  --file F            run F instead of your workspace copy (not recorded)\n"
     "  --trace FILE.json   write the run's timeline (copies, kernels, host work per\n"
     "                      stream) as Chrome trace JSON for Perfetto or\n"
     "                      chrome://tracing; a modeled timeline says so. On a GPU\n"
     "                      the times are CUPTI's (CUDOJO_TIMELINE=events: CUDA\n"
     "                      events around each call instead)\n"
     "  --explain LINE      instead of the verdict: the access map of source line\n"
     "                      LINE on the emulator (not recorded): one warp's 32\n"
     "                      lanes → array elements, the 128-byte lines and 32-byte\n"
     "                      sectors a global access touches, the 32 banks of a\n"
     "                      shared one with conflicting lanes stacked. Its warp is\n"
     "                      the first that ran the line\n"
     "  --explain worst     the same for the costliest line (sectors per request,\n"
     "                      bank conflicts)\n"
     "  --block X[,Y[,Z]]   with --explain: the block whose warp is drawn\n"
     "  --warp W            with --explain: its warp (threads 32*W .. 32*W+31)\n"
     "Exit status: 0 pass, 1 fail, 2 usage or setup error (or the trace could not\n"
     "be written: the attempt is still recorded). With --explain: 0 drawn, 1 the\n"
     "line has no global or shared access, never ran, or the run failed first.\n",
     "编译你的 EXERCISE 副本，在 GPU 或模拟器上运行，把结果和 CPU 参考实现对比，\n"
     "并记录这次尝试。\n"
     "EXERCISE 是练习 id（vector-add）或一个文件：你的副本（hello-gpu/vector-add.cu）\n"
     "和 id 一样；文件名是某个练习的其他文件（solutions/vector-add.cu）会代替你的副本\n"
     "运行，和 --file 一样，不记录。\n"
     "选项：\n"
     "  --param K=V         覆盖练习的一个参数（例如 --param n=1000）\n"
     "  --file F            运行 F 而不是工作区里的副本（不记录）\n"
     "  --trace FILE.json   把这次运行的时间线（每个流的拷贝、核函数、主机工作）\n"
     "                      写成 Chrome trace JSON，可用 Perfetto 或\n"
     "                      chrome://tracing 打开；模型估算的时间线会注明。在 GPU\n"
     "                      上时间来自 CUPTI（CUDOJO_TIMELINE=events：改用每次\n"
     "                      调用前后的 CUDA 事件）\n"
     "  --explain LINE      不给判定，改为在模拟器上画出源代码第 LINE 行的访问图\n"
     "                      （不记录）：一个线程束的 32 个 lane → 数组元素，全局\n"
     "                      访问涉及的 128 字节缓存行和 32 字节扇区，共享内存访问\n"
     "                      的 32 个 bank（冲突的 lane 叠在一起）。画的是第一个\n"
     "                      执行这一行的线程束\n"
     "  --explain worst     对代价最高的一行做同样的事（按每次请求的扇区数、\n"
     "                      bank 冲突）\n"
     "  --block X[,Y[,Z]]   和 --explain 一起用：画哪个线程块的线程束\n"
     "  --warp W            和 --explain 一起用：它的哪个线程束（线程 32*W .. 32*W+31）\n"
     "退出状态：0 通过，1 未通过，2 用法或环境错误（或跟踪文件写不出来：尝试仍会\n"
     "被记录）。加 --explain 时：0 已画出，1 这一行没有全局或共享内存访问、从未\n"
     "执行，或运行先失败了。\n"},
    {"a regular file", "普通文件"},
    {"a directory", "目录"},
    {"a FIFO (named pipe)", "FIFO（命名管道）"},
    {"a character device", "字符设备"},
    {"a block device", "块设备"},
    {"a socket", "套接字"},
    {"a symbolic link", "符号链接"},
    {"not a regular file", "不是普通文件"},
    {"a link or not a folder on the way", "路径上有链接或不是文件夹的部分"},
    {"the emulator could not start", "模拟器没能启动"},
    {"no launch", "没有启动"},
    {"cudojo debug: --line %s: expects a line number\n", "cudojo debug：--line %s：需要一个行号\n"},
    {"cudojo debug: unknown option %s (see cudojo debug --help)\n", "cudojo debug：未知选项 %s（见 cudojo debug --help）\n"},
    {"cudojo debug: expects one EXERCISE\n", "cudojo debug：需要一个 EXERCISE（练习）\n"},
    {"cudojo debug: expects one EXERCISE (see `cudojo list`)\n", "cudojo debug：需要一个 EXERCISE（练习，见 `cudojo list`）\n"},
    {"cudojo debug: --line and --first-finding exclude each other\n", "cudojo debug：--line 和 --first-finding 不能同时使用\n"},
    {"cudojo debug: --file and --solution exclude each other\n", "cudojo debug：--file 和 --solution 不能同时使用\n"},
    {"note: %s\n", "注意：%s\n"},
    {"barrier", "屏障"},
    {"end", "结束"},
    {"%5d  line %-4d %s %2d/32 ", "%5d  第 %-4d 行 %s %2d/32 "},
    {"… %d more steps\n", "… 还有 %d 步\n"},
    {"finding: line %d: %s\n", "发现的问题：第 %d 行：%s\n"},
    {"cudojo debug: %s is a whole program, not kernels an exercise launches; the debugger steps through kernels of kernel exercises\n",
     "cudojo debug：%s 是完整程序，不是由练习启动的核函数；调试器只能单步执行核函数练习的核函数\n"},
    {"cudojo debug: %s: the emulator found nothing to stop at; starting at the first line\n",
     "cudojo debug：%s：模拟器没有发现可以停下的地方；从第一行开始\n"},
    {"cudojo debug: warp %d of block (%u,%u,%u) never runs line %d; starting at the first line\n",
     "cudojo debug：线程束 %d（线程块 (%u,%u,%u)）从不执行第 %d 行；从第一行开始\n"},
    {"step one warp of your kernel line by line (emulator)", "逐行单步执行你的核函数中的一个线程束（模拟器）"},
    {"Runs EXERCISE on the emulator with one warp of one block recorded, then\n"
     "steps through your kernel's source a line at a time: which of the 32 lanes\n"
     "run each line, your variables' values per lane, the block's shared memory.\n"
     "Stepping back is free (the run is recorded).\n"
     "Options:\n"
     "  --block X[,Y[,Z]]  the block to follow (default 0)\n"
     "  --warp W           its warp: threads 32*W .. 32*W+31 (default 0)\n"
     "  --line L           start at the first time the warp reaches line L\n"
     "  --first-finding    follow the thread of the emulator's first finding (an\n"
     "                     out-of-bounds access, a race) and stop at its line\n"
     "  --file F           debug F instead of your workspace copy (EXERCISE may\n"
     "                     also be a file: see cudojo run --help)\n"
     "  --solution         debug the exercise's solution (authors)\n"
     "  --print            print the steps instead of opening the screen (also\n"
     "                     when the output is not a terminal)\n"
     "Keys: n next line, p back, b next barrier, e end, w next warp, B next block,\n"
     "< > other lanes, q quit.\n"
     "Variable names come from the lines that assign them (the compiled code keeps\n"
     "only line numbers), so a value the compiler moved may show on a nearby line.\n"
     "Exit status: 0 shown, 1 nothing recorded, 2 usage or setup error, 3 a whole-\n"
     "program exercise (nothing to step).\n",
     "在模拟器上运行 EXERCISE，记录一个线程块中的一个线程束，然后逐行单步浏览\n"
     "你的核函数源代码：每一行由 32 个 lane 中的哪些执行，每个 lane 上变量的值，\n"
     "线程块的共享内存。后退不需要代价（运行已被记录下来）。\n"
     "选项：\n"
     "  --block X[,Y[,Z]]  要跟踪的线程块（默认 0）\n"
     "  --warp W           它的线程束：线程 32*W .. 32*W+31（默认 0）\n"
     "  --line L           从线程束第一次到达第 L 行时开始\n"
     "  --first-finding    跟踪模拟器发现的第一个问题（越界访问、数据竞争）所在的\n"
     "                     线程，并停在它的那一行\n"
     "  --file F           调试 F 而不是工作区里的副本（EXERCISE 也可以是一个文件：\n"
     "                     见 cudojo run --help）\n"
     "  --solution         调试练习的参考答案（供作者使用）\n"
     "  --print            打印各步而不打开界面（输出不是终端时也这样）\n"
     "按键：n 下一行，p 后退，b 下一个屏障，e 结尾，w 下一个线程束，B 下一个线程块，\n"
     "< > 其他 lane，q 退出。\n"
     "变量名来自给它们赋值的那些行（编译后的代码只保留行号），所以被编译器移动过\n"
     "的值可能显示在附近的一行上。\n"
     "退出状态：0 已显示，1 没有记录到任何东西，2 用法或环境错误，3 完整程序练习\n"
     "（没有可以单步执行的东西）。\n"},

    /* the debugger screen's remaining words (app/tui/tui_debug*.c) */
    {"local", "本地内存"},
    {"byte 0x", "字节 0x"},
    {"the run failed", "运行失败了"},

    /* the emulator's errors without arguments, and what a bad range was for (kernels/emu/emu_backend.c) */
    {"invalid argument: a view needs an allocation of mem_alloc", "无效参数（invalid argument）：视图需要一块 mem_alloc 分配的内存"},
    {"the module has no PTX", "模块里没有 PTX"},
    {"out of memory for the device heap", "设备堆内存不足（out of memory）"},
    {"marking memory written", "标记内存为已写入"},
    {"marking memory uninitialised", "标记内存为未初始化"},
    {"copy to device", "拷贝到设备"},
    {"copy to host", "拷贝到主机"},
    {"device copy destination", "设备内拷贝的目标"},
    {"device copy source", "设备内拷贝的源"},

    /* a trace's default stream; doctor's reason for no GPU (kernels/cuda/cuda_backend.h CUDA_NO_DRIVER) */
    {"default (legacy)", "默认流（传统）"},
    {"no NVIDIA driver found on this machine (no /dev/nvidiactl, no libcuda.so.1)", "这台机器上没有找到 NVIDIA 驱动（没有 /dev/nvidiactl，也没有 libcuda.so.1）"},
    {"no GPU: the driver found no CUDA device", "没有 GPU：驱动没有找到 CUDA 设备"},
    /* cudojo doctor (app/cmd_doctor.c) and why a GPU is not there (kernels/cuda/) */
    {"what this machine has: GPU, driver, toolkit, NVRTC, backends", "这台机器有什么：GPU、驱动、工具包、NVRTC、后端"},
    {"Reports the CUDA toolkit, NVRTC, the driver and GPUs, and which backends work\n"
     "here (and why not). On a GPU also its peaks: the copy bandwidth every\n"
     "\"percent of the copy bandwidth\" is divided by (the better of a tuned copy\n"
     "kernel and cudaMemcpy device to device) and FP32/FP64 FMA throughput,\n"
     "measured once per device and driver (a second or two) and cached.\n",
     "报告 CUDA 工具包、NVRTC、驱动和 GPU，以及哪些后端在这里能用（不能用时说明原因）。\n"
     "有 GPU 时还报告它的峰值：复制带宽（每个“占复制带宽的百分比”都以它为分母；取调优过的\n"
     "复制核函数与设备到设备的 cudaMemcpy 中较好的一个），以及 FP32/FP64 FMA 吞吐量。\n"
     "每个设备和驱动只测一次（一两秒），之后使用缓存。\n"},
    {"cudojo doctor: takes no arguments\n", "cudojo doctor：不接受参数\n"},
    {"CUDA toolkit", "CUDA 工具包"},
    {"  NOT FOUND", "  未找到"},
    {"compiles a test kernel in %.0f ms\n", "编译一个测试核函数用时 %.0f ms\n"},
    {"does not work: %s\n", "不可用：%s\n"},
    {"%s: %s\n", "%s：%s\n"},
    {"%s (%s), compiles a test program in %.0f ms\n", "%s（%s），编译一个测试程序用时 %.0f ms\n"},
    {"emu runtime", "模拟器运行时"},
    {"%s in %s (whole programs without a GPU)\n", "%s，位于 %s（没有 GPU 时运行完整程序）\n"},
    {"not built: programs with main() cannot run without a GPU (`make` builds it; CUDOJO_EMURT_DIR names another place)\n",
     "未构建：没有 GPU 时无法运行带 main() 的程序（`make` 会构建它；也可用 CUDOJO_EMURT_DIR 指定别的位置）\n"},
    {"GPU recorder", "GPU 记录器"},
    {"not built (programs on a GPU run without calls or timeline)", "未构建（程序在 GPU 上运行时不记录调用和时间线）"},
    {"tool cage", "工具沙箱"},
    {"not built: graded programs cannot run under compute-sanitizer (`make` builds it; CUDOJO_CONFINE_DIR names another place)",
     "未构建：评分时的程序无法在 compute-sanitizer 下运行（`make` 会构建它；也可用 CUDOJO_CONFINE_DIR 指定别的位置）"},
    {"none: no NVIDIA driver is installed (no /dev/nvidiactl, no libcuda.so.1)\n",
     "无：没有安装 NVIDIA 驱动（没有 /dev/nvidiactl，也没有 libcuda.so.1）\n"},
    {"none found", "一个也没有找到"},
    {"none (%s)\n", "无（%s）\n"},
    {"GPUs", "GPU"},
    {"%s, compute capability %s, %lld SMs, %.1f GiB\n", "%s，计算能力 %s，%lld 个 SM，%.1f GiB\n"},
    {"\nBackends\n", "\n后端\n"},
    {", timeline from CUPTI activity records", "，时间线来自 CUPTI 活动记录"},
    {", timeline from CUDA events (no CUPTI: %s)", "，时间线来自 CUDA 事件（没有 CUPTI：%s）"},
    {"\nPeaks of this GPU (every \"%% of the copy bandwidth\" is divided by the first)\n",
     "\n这块 GPU 的峰值（每个“占复制带宽的 %%”都以第一项为分母）\n"},
    {"  not measured: %s\n", "  未测量：%s\n"},
    {"  copy bandwidth  %.0f GB/s (%s; read + written, median of %lld copies of %.1f GiB)\n",
     "  复制带宽        %.0f GB/s（%s；读 + 写，%lld 次复制 %.1f GiB 的中位数）\n"},
    {"    copy kernel   %.0f GB/s, spread %.1f%% (%s)\n", "    复制核函数    %.0f GB/s，波动 %.1f%%（%s）\n"},
    {"%u threads x %u blocks/SM, %d float4 per thread per step", "%u 个线程 x 每 SM %u 个线程块，每个线程每步 %d 个 float4"},
    {"copy kernel", "复制核函数"},
    {"    cudaMemcpy    %.0f GB/s, spread %.1f%% (device to device)\n", "    cudaMemcpy    %.0f GB/s，波动 %.1f%%（设备到设备）\n"},
    {"  measured %s for this device and driver, cached in %s (delete it to measure again)\n",
     "  于 %s 为这个设备和驱动测量，缓存在 %s（删除它即可重新测量）\n"},
    {"  measured now in %.1f s, cached in %s\n", "  刚刚测量，用时 %.1f s，缓存在 %s\n"},
    {"\nRuns will use: %s%s\n", "\n运行将使用：%s%s\n"},
    {" (no NVIDIA driver found: running on the emulator)", "（没有找到 NVIDIA 驱动：在模拟器上运行）"},
    {" (no working GPU here)", "（这里没有可用的 GPU）"},
    {"the driver found no CUDA device", "驱动没有找到 CUDA 设备"},
    {"no GPU: cudaEventCreate: %s", "没有 GPU：cudaEventCreate：%s"},
    /* cudart's usual reasons (cudaGetErrorString), not marked: looked up when shown */
    {"no CUDA-capable device is detected", "没有检测到支持 CUDA 的设备"},
    {"CUDA driver version is insufficient for CUDA runtime version", "CUDA 驱动版本低于 CUDA 运行时所需的版本"},
    /* cudojo verify (app/cmd_verify.c) */
    {"authors: every solution passes, every starter and wrong variant fails",
     "供作者用：每个参考解答都通过，每个起始代码和错误变体都不通过"},
    {"For each exercise of the chapters given (default: the whole course), runs the\n"
     "solution (must pass), the starter (must fail) and every wrong variant (must\n"
     "fail). Exit status 0 when everything behaves. On a GPU, a wrong variant that\n"
     "the hardware lets pass (a race, a stray read: undefined behaviour) counts as\n"
     "caught when the emulator catches it, and says so.\n"
     "\n"
     "  --jobs N, -j N runs at once, each in its own worker (default: 1; with\n"
     "                 --mutants: the cores; 0 or auto: the cores). The report\n"
     "                 keeps the course's order, a row printed once all before it\n"
     "                 are; progress on stderr when it is a terminal. On a GPU,\n"
     "                 timed work takes turns (the GPU lock in CUDOJO_GPU_LOCK_DIR,\n"
     "                 a private one for this run when it is unset) and a run's\n"
     "                 time limit is N times the exercise's, for its waits\n"
     "  --mutants      check the checks instead: run each solution, then mutants of it\n"
     "                 on the emulator (each __syncthreads()/__syncwarp()/g.sync()\n"
     "                 dropped, each if guard weakened (< to <=, >= to >) or dropped,\n"
     "                 each loop bound moved by one, threadIdx/blockIdx .x and .y\n"
     "                 swapped, an atomic made a plain read-modify-write, a program's\n"
     "                 cudaDeviceSynchronize()/cudaStreamSynchronize() dropped). A\n"
     "                 mutant that passes survived: a hole in the exercise's checks,\n"
     "                 unless the exercise allows it (mutants_equivalent or\n"
     "                 mutants_undetected: those are not run). A mutant that does\n"
     "                 not compile is invalid; one that runs out of time runs once\n"
     "                 more with a longer limit, and out of time again it timed out:\n"
     "                 not known to be killed. Exit status 1 when any survive or\n"
     "                 time out; progress on stderr.\n"
     "  --run-allowed  with --mutants: run the allowed mutants too, and say which\n"
     "                 allowances the checks no longer need\n",
     "对给定章节（默认：整门课程）的每个练习，运行参考解答（必须通过）、起始代码（必须\n"
     "不通过）和每个错误变体（必须不通过）。一切符合预期时退出状态为 0。在 GPU 上，硬件\n"
     "碰巧放过的错误变体（竞争条件、越界读取：未定义行为）只要模拟器能发现，就算已发现，\n"
     "并会注明。\n"
     "\n"
     "  --jobs N, -j N 同时运行的个数，每个在自己的工作进程里（默认：1；与 --mutants\n"
     "                 一起用时：CPU 核数；0 或 auto：CPU 核数）。报告保持课程的\n"
     "                 顺序，一行在它之前的各行都打印后才打印；stderr 是终端时在\n"
     "                 那里显示进度。在 GPU 上，计时的工作轮流进行（GPU 锁在\n"
     "                 CUDOJO_GPU_LOCK_DIR 中，未设置时为这次运行另建一个私有的），\n"
     "                 一次运行的时限是练习时限的 N 倍，留给等待\n"
     "  --mutants      改为检查这些检查：运行每个参考解答，再在模拟器上运行它的变异体\n"
     "                 （逐个删掉 __syncthreads()/__syncwarp()/g.sync()，逐个放宽\n"
     "                 if 条件（< 改为 <=，>= 改为 >）或删掉它，循环边界逐个移动一，\n"
     "                 交换 threadIdx/blockIdx 的 .x 和 .y，把原子操作改成普通的\n"
     "                 读-改-写，删掉程序的 cudaDeviceSynchronize()/\n"
     "                 cudaStreamSynchronize()）。通过的变异体就是存活了：练习的检查\n"
     "                 有漏洞，除非练习允许它（mutants_equivalent 或\n"
     "                 mutants_undetected：这些变异体不运行）。不能编译的变异体无效；\n"
     "                 超时的变异体用更长的时限再运行一次，再次超时就算超时：\n"
     "                 不知道它是否被杀死。有变异体存活或超时时退出状态为 1；\n"
     "                 进度写到 stderr。\n"
     "  --run-allowed  与 --mutants 一起用：也运行被允许的变异体，并指出检查已不再\n"
     "                 需要哪些允许条目\n"},
    {"--jobs %s: a number of runs at once from 1 to 64, or 0 or auto for the cores",
     "--jobs %s：同时运行的个数，取 1 到 64，或用 0 或 auto 表示 CPU 核数"},
    {"\rverify: %d of %d runs, %d not as expected, %.0f s%s", "\rverify：%d/%d 次运行，%d 次不符合预期，%.0f 秒%s"},
    {"verify: cannot make a GPU lock folder (%s): timed runs may overlap\n",
     "verify：无法建立 GPU 锁文件夹（%s）：计时的运行可能重叠\n"},
    {"solution", "参考解答"},
    {"starter", "起始代码"},
    {"wrong", "错误变体"},
    {"must pass", "必须通过"},
    {"must compile and fail", "必须能编译且不通过"},
    {"must fail", "必须不通过"},
    {"no finding", "没有发现问题"},
    {"passes on this GPU by luck; the emulator catches it", "在这块 GPU 上碰巧通过；模拟器能发现它"},
    {"      %s, but it gave: %s\n", "      %s，但结果是：%s\n"},
    {"  - %-20s skipped: needs a GPU\n", "  - %-20s 已跳过：需要 GPU\n"},
    {"  - %-20s needs %d GPUs, this machine has %d: verified on the emulator\n",
     "  - %-20s 需要 %d 块 GPU，这台机器只有 %d 块：在模拟器上验证\n"},
    {"\n%d as expected, %d not, %d skipped%s\n", "\n%d 个符合预期，%d 个不符合，%d 个已跳过%s\n"},
    {" (and the course has loading errors, above)", "（而且课程加载时有错误，见上文）"},
    /* cudojo's usage and the options of every command (app/cli.c) */
    {"cudojo — learn CUDA by doing\n\n"
     "Usage: cudojo [OPTIONS]              open the workbench\n"
     "       cudojo COMMAND [ARGS] [OPTIONS]\n\nCommands:\n",
     "cudojo —— 动手学 CUDA\n\n"
     "用法：cudojo [选项]                  打开工作台\n"
     "      cudojo 命令 [参数] [选项]\n\n命令：\n"},
    {"\n%s\n`cudojo COMMAND --help` tells more about one command.\n", "\n%s\n`cudojo 命令 --help` 详细介绍一个命令。\n"},
    {"cudojo: unknown command '%s'\n", "cudojo：没有这个命令 '%s'\n"},
    {"Usage: cudojo %s %s\n\n%s\n%s", "用法：cudojo %s %s\n\n%s\n%s"},
    {"Options for every command:\n"
     "  --json              machine-readable output on stdout: one JSON document\n"
     "                      (watch: JSON Lines); messages go to stderr. Text that is\n"
     "                      not UTF-8 (a path, kernel output) keeps its bytes: each\n"
     "                      byte that is not UTF-8 becomes U+EF00 + the byte\n"
     "  --backend=B         cuda (the GPU), emu (the PTX emulator) or auto (default:\n"
     "                      the GPU when one works, else the emulator)\n"
     "  --emu-threads=N     host threads the emulator uses (default: all cores)\n"
     "  -C, --workspace DIR use the workspace at DIR (default: the one holding the\n"
     "                      current directory, else $XDG_DATA_HOME/cudojo)\n"
     "  --lessons DIR       the course to use (default: the one shipped with cudojo)\n"
     "  --no-color          no colours (NO_COLOR is honoured too)\n"
     "  -h, --help          help for cudojo or a command\n",
     "所有命令都接受的选项：\n"
     "  --json              在 stdout 上输出机器可读的结果：一个 JSON 文档\n"
     "                      （watch：JSON Lines）；消息写到 stderr。不是 UTF-8 的\n"
     "                      文本（路径、核函数的输出）保留原字节：每个不是 UTF-8\n"
     "                      的字节变成 U+EF00 + 该字节\n"
     "  --backend=B         cuda（GPU）、emu（PTX 模拟器）或 auto（默认：有可用的\n"
     "                      GPU 时用 GPU，否则用模拟器）\n"
     "  --emu-threads=N     模拟器使用的主机线程数（默认：所有 CPU 核）\n"
     "  -C, --workspace DIR 使用 DIR 处的工作区（默认：包含当前目录的那个，\n"
     "                      否则是 $XDG_DATA_HOME/cudojo）\n"
     "  --lessons DIR       要使用的课程（默认：cudojo 自带的课程）\n"
     "  --no-color          不使用颜色（也遵守 NO_COLOR）\n"
     "  -h, --help          cudojo 或某个命令的帮助\n"},
    /* cudojo exec's summary (app/exec_summary.c) */
    {"%zu CUDA calls (", "%zu 次 CUDA 调用（"},
    {"%s%ld not recorded", "%s%ld 次未记录"},
    {"; no kernel ran", "；没有核函数运行"},
    {"; %zu kernel launches: ", "；%zu 次核函数启动："},
    {" (%.3f ms on average, %s)", "（平均 %.3f ms，%s）"},
    {"cudojo's emulator runtime", "cudojo 的模拟器运行时"},
    {"the GPU", "GPU"},
    {"cudojo exec: %s ran on %s", "cudojo exec：%s 运行在%s上"},
    {"%s; running on cudojo's emulator runtime", "%s；在 cudojo 的模拟器运行时上运行"},
    {"cudojo exec: %s\n", "cudojo exec：%s\n"},
    {": ", "："},
    {"no working GPU", "没有可用的 GPU"},
    {" and made no CUDA runtime call", "，没有调用 CUDA 运行时"},
    {"; %d errors", "；%d 个错误"},
    {" and %d warnings", "和 %d 个警告"},
    {"; %d warnings", "；%d 个警告"},
    {" above", "（见上文）"},
    {". It %s.\n", "。程序%s。\n"},
};

const size_t I18N_ZH_COUNT = sizeof I18N_ZH / sizeof I18N_ZH[0];
