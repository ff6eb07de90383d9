/* base/i18n_zh_authors.c: the Chinese catalogue of the authors' and
 * instructors' commands: cudojo new, lint, verify --mutants, class and
 * grade (their summaries, messages and end-of-run lines; --json stays
 * English), and cudojo exec's usage errors. The rules are base/i18n_zh.c's
 * (terms from lessons/GLOSSARY.zh-CN.md, the same printf conversions in the
 * same order, leading and trailing newlines kept). */
#include "base/i18n.h"

const I18nEntry I18N_ZH_AUTHORS[] = {
    /* cudojo grade: the progress line and the end-of-run summary (app/grade_run.c, app/cmd_grade.c) */
    {"instructors: grade a class against your course", "讲师用：按你的课程给全班评分"},
    {"Grades every SUBMISSION (a learner's workspace folder, or an archive made by\n"
     "`cudojo submit`) against the course at --course DIR: each exercise file is\n"
     "compiled and run in a sandboxed worker with the exercise's timeout and its\n"
     "hidden checks (t:grading()), on data seeded apart from the learner's. A\n"
     "submission's own .lua files are never used. Results go to OUT/grade.db as\n"
     "each run ends: run the same command again after a crash or Ctrl-C and it\n"
     "goes on where it stopped; an unchanged file under an unchanged course is\n"
     "never run twice. Then it writes OUT/gradebook.csv, OUT/gradebook.json,\n"
     "OUT/students/NAME/results.json (Gradescope format) and feedback.md, and\n"
     "OUT/similarity.md. Exercises that need a GPU are not graded on the emulator\n"
     "(and not counted). On a GPU, a run that passes runs again on the emulator,\n"
     "which finds races and stray reads the hardware let pass: a pass it finds\n"
     "such a bug in is graded as failed (\"passed on the GPU by luck: the emulator\n"
     "found a race at FILE:LINE\"); missing a speed target there is no failure\n"
     "(the GPU's time counts).\n"
     "Options:\n"
     "  --course DIR        the instructor's course (its lessons/ folder, or the\n"
     "                      folder holding it)\n"
     "  --out DIR           where the database and the gradebook go (made if needed)\n"
     "  --jobs N, -j N      workers running at once (default: the cores)\n"
     "  --exercises A,B     grade only these exercises (ids)\n"
     "  --shard I/K         grade only the students whose place in the sorted list\n"
     "                      is I modulo K (one task of an array job)\n"
     "  --merge DB...       join shard databases into OUT/grade.db and write the\n"
     "                      gradebook (no runs; idempotent, any order)\n"
     "  --seed N            the grading seed (default: derived from the course)\n"
     "  --emu-check=on|off  on a GPU, run each pass again on the emulator (default:\n"
     "                      on); a file graded the other way is graded again\n"
     "  --slurm             grade as a Slurm array job: writes OUT/slurm/grade.sbatch\n"
     "                      (task I runs this cudojo with --shard I/K into\n"
     "                      OUT/shards/I), submits it with sbatch, shows tasks\n"
     "                      done/total while it waits, then merges the shards into\n"
     "                      OUT as --merge does. A shard that fails is named with\n"
     "                      its log (OUT/slurm/JOB_I.log); the others are merged and\n"
     "                      the exit status is 1. $CUDOJO_SLURM_SELF: a wrapper the\n"
     "                      tasks run instead of this cudojo (to load modules first)\n"
     "  --shards K          with --slurm: the number of array tasks (required)\n"
     "  --partition P       with --slurm: sbatch's --partition\n"
     "  --gres G            with --slurm: sbatch's --gres (gpu:1 for GPU grading)\n"
     "  --time T            with --slurm: each task's time limit (sbatch's --time)\n"
     "  --no-wait           with --slurm: submit, print the --merge command, return\n"
     "                      (--jobs N with --slurm: CPUs and workers per task)\n"
     "  --json              the summary as JSON on stdout (runs_executed, ...)\n"
     "Environment: CUDOJO_GRADE_AHEAD=K, the threads that compile programs ahead\n"
     "of the workers, at a lower priority, into the cache the workers read\n"
     "(default: a quarter of the workers, at least 1; 0: off).\n"
     "Progress goes to stderr: a bar with runs/s and ETA on a terminal, else a\n"
     "line every 5 s. Exit status: 0 graded, 1 interrupted (resumable), 2 usage\n"
     "or setup error.\n",
     "按 --course DIR 处的课程给每个 SUBMISSION（学员的工作区文件夹，或 `cudojo submit`\n"
     "打成的归档）评分：每个练习文件都在沙箱里的工作进程中编译和运行，用练习的时限和它的\n"
     "隐藏检查（t:grading()），数据的种子与学员自己运行时的不同。提交里自带的 .lua 文件\n"
     "从不使用。每次运行一结束，结果就写进 OUT/grade.db：崩溃或按 Ctrl-C 之后再运行同一条\n"
     "命令，会从停下的地方接着做；课程没变、文件也没变的，绝不会运行第二次。然后写出\n"
     "OUT/gradebook.csv、OUT/gradebook.json、OUT/students/NAME/results.json（Gradescope\n"
     "格式）和 feedback.md，以及 OUT/similarity.md。需要 GPU 的练习在模拟器上不评分\n"
     "（也不计入）。在 GPU 上，通过的运行会在模拟器上再运行一次，模拟器能发现硬件碰巧\n"
     "放过的数据竞争和越界读取：它发现了这类错误的通过按不通过评分（“在 GPU 上碰巧通过：\n"
     "模拟器发现了数据竞争，位置 FILE:LINE”）；在模拟器上没达到速度目标不算失败（以 GPU\n"
     "的时间为准）。\n"
     "选项：\n"
     "  --course DIR        讲师的课程（它的 lessons/ 文件夹，或包含它的文件夹）\n"
     "  --out DIR           数据库和成绩册写到哪里（需要时会创建）\n"
     "  --jobs N, -j N      同时运行的工作进程数（默认：CPU 核数）\n"
     "  --exercises A,B     只评这些练习（id）\n"
     "  --shard I/K         只评在排好序的名单中位置模 K 等于 I 的学员（数组作业的一个任务）\n"
     "  --merge DB...       把各分片的数据库合并进 OUT/grade.db 并写出成绩册\n"
     "                      （不运行；可重复执行，顺序不限）\n"
     "  --seed N            评分种子（默认：由课程推导出来）\n"
     "  --emu-check=on|off  在 GPU 上把每次通过的运行在模拟器上再运行一次（默认：on）；\n"
     "                      按另一种方式评过的文件会重新评分\n"
     "  --slurm             作为 Slurm 数组作业评分：写出 OUT/slurm/grade.sbatch\n"
     "                      （任务 I 用 --shard I/K 运行这个 cudojo，写到 OUT/shards/I），\n"
     "                      用 sbatch 提交，等待时显示已完成/总任务数，然后像 --merge\n"
     "                      那样把各分片合并进 OUT。失败的分片会连同它的日志\n"
     "                      （OUT/slurm/JOB_I.log）一起列出；其余的照样合并，退出状态为 1。\n"
     "                      $CUDOJO_SLURM_SELF：任务代替这个 cudojo 运行的包装程序\n"
     "                      （用来先加载模块）\n"
     "  --shards K          与 --slurm 一起用：数组任务的个数（必须给出）\n"
     "  --partition P       与 --slurm 一起用：sbatch 的 --partition\n"
     "  --gres G            与 --slurm 一起用：sbatch 的 --gres（在 GPU 上评分用 gpu:1）\n"
     "  --time T            与 --slurm 一起用：每个任务的时限（sbatch 的 --time）\n"
     "  --no-wait           与 --slurm 一起用：提交，打印 --merge 命令，然后返回\n"
     "                      （与 --slurm 一起用时 --jobs N 是每个任务的 CPU 数和工作进程数）\n"
     "  --json              以 JSON 在 stdout 上输出总结（runs_executed 等）\n"
     "环境变量：CUDOJO_GRADE_AHEAD=K，在工作进程之前以较低优先级编译程序的线程数，\n"
     "编译结果放进工作进程读取的缓存（默认：工作进程数的四分之一，至少 1；0：关闭）。\n"
     "进度写到 stderr：在终端上是一个带每秒运行次数和预计剩余时间的进度条，否则每 5 秒一行。\n"
     "退出状态：0 表示已评分，1 表示被中断（可以接着做），2 表示用法或设置错误。\n"},
    {"graded %zu students on %zu exercises: %lld runs in %.1f s (%.1f runs/s), %lld already graded, %lld missing files\n",
     "已为 %zu 名学员的 %zu 个练习评分：%lld 次运行，用时 %.1f 秒（每秒 %.1f 次），%lld 次此前已评，缺少 %lld 个文件\n"},
    {"GPU lock: %lld runs held it %.1f s alone (timed) and %.1f s shared, and waited %.1f s for it\n",
     "GPU 锁：%lld 次运行独占（计时）持有 %.1f 秒、共享持有 %.1f 秒，等待它 %.1f 秒\n"},
    {"%d exercises need a GPU and were not graded on the emulator (not counted)\n",
     "%d 个练习需要 GPU，没有在模拟器上评分（不计入）\n"},
    {"problem: %s\n", "问题：%s\n"},
    {"emulator check: %lld GPU passes run again on the emulator; %lld of them passed on the GPU by luck (the emulator found a bug: graded as failed)\n",
     "模拟器复查：%lld 次 GPU 上的通过在模拟器上又运行了一次；其中 %lld 次是在 GPU 上碰巧通过（模拟器发现了错误：按不通过评分）\n"},
    {"grade: a run that passes on the GPU runs again on the emulator, which finds races and stray reads the GPU let pass (--emu-check=off: the GPU's verdict alone)\n",
     "grade：在 GPU 上通过的运行会在模拟器上再运行一次，模拟器能发现 GPU 碰巧放过的数据竞争和越界读取（--emu-check=off：只看 GPU 的结果）\n"},
    {"misaligned access", "未对齐访问"},
    {"gradebook: %s/gradebook.csv, %s/gradebook.json; per student: %s/students/NAME/{results.json,feedback.md}; similarity: %s/similarity.md\n",
     "成绩册：%s/gradebook.csv、%s/gradebook.json；每名学员：%s/students/NAME/{results.json,feedback.md}；相似度：%s/similarity.md\n"},
    {"\r  [%s] %lld/%lld runs  %.1f runs/s  ETA %s ", "\r  [%s] %lld/%lld 次运行  每秒 %.1f 次  预计剩余 %s "},
    {"grade: %lld/%lld runs, %.1f runs/s, ETA %s\n", "grade：%lld/%lld 次运行，每秒 %.1f 次，预计剩余 %s\n"},
    {"grade: %lld runs to do (%d students, %d workers)%s\n", "grade：要做 %lld 次运行（%d 名学员，%d 个工作进程）%s\n"},
    {", the rest already graded", "，其余的此前已评"},
    {"grade: %d threads compile programs ahead of the workers (CUDOJO_GRADE_AHEAD=0: off)\n",
     "grade：%d 个线程在工作进程之前编译程序（CUDOJO_GRADE_AHEAD=0：关闭）\n"},
    {"nvcc builds: %lld, in the workers' runs (compile ahead off)\n",
     "nvcc 构建：%lld 次，都在工作进程的运行中（提前编译已关闭）\n"},
    {"compile ahead (%lld threads): %lld nvcc builds ahead, %lld worker builds took one (%lld of them waiting for it to finish), %lld unused, %lld failed; %lld nvcc builds in the workers' runs\n",
     "提前编译（%lld 个线程）：提前做了 %lld 次 nvcc 构建，工作进程有 %lld 次构建直接取用（其中 %lld 次等它编译完），%lld 次没用上，%lld 次失败；工作进程的运行中做了 %lld 次 nvcc 构建\n"},
    /* cudojo exec's usage errors and notes (app/cmd_exec.c) */
    {"cudojo exec: %s needs a value\n", "cudojo exec：%s 需要一个值\n"},
    {"cudojo exec: --backend must be cuda, emu or auto (got '%s')\n",
     "cudojo exec：--backend 必须是 cuda、emu 或 auto（收到的是 '%s'）\n"},
    {"cudojo exec: --timeout takes seconds (0 = none), got '%s'\n",
     "cudojo exec：--timeout 接受秒数（0 = 不限时），收到的是 '%s'\n"},
    {"cudojo exec: --devices takes a number from 1 to 16, got '%s'\n",
     "cudojo exec：--devices 接受 1 到 16 之间的数，收到的是 '%s'\n"},
    {"cudojo exec: --profile must be ncu (Nsight Compute) or nsys (Nsight Systems), got '%s'\n",
     "cudojo exec：--profile 必须是 ncu（Nsight Compute）或 nsys（Nsight Systems），收到的是 '%s'\n"},
    {"cudojo exec: --sanitizer must be memcheck, racecheck, initcheck or synccheck, got '%s'\n",
     "cudojo exec：--sanitizer 必须是 memcheck、racecheck、initcheck 或 synccheck，收到的是 '%s'\n"},
    {"cudojo exec: --emu-threads takes a number from 0 (all cores) to 1024\n",
     "cudojo exec：--emu-threads 接受 0（所有 CPU 核）到 1024 之间的数\n"},
    {"cudojo exec: unknown option '%s' (cudojo's options go before PROGRAM; see `cudojo exec --help`)\n",
     "cudojo exec：未知选项 '%s'（cudojo 的选项放在 PROGRAM 之前；见 `cudojo exec --help`）\n"},
    {"cudojo exec: --profile and --sanitizer each run the program under a tool: give one\n",
     "cudojo exec：--profile 和 --sanitizer 都会在一个工具下运行程序：只能给一个\n"},
    {"cudojo exec: which program? (cudojo exec [OPTIONS] PROGRAM [ARGS...])\n",
     "cudojo exec：运行哪个程序？（cudojo exec [选项] PROGRAM [ARGS...]）\n"},
    {"cudojo exec: %s: not found\n", "cudojo exec：%s：找不到\n"},
    {"cudojo exec: %s: not found in PATH (for a program here, write ./%s)\n",
     "cudojo exec：%s：在 PATH 中找不到（当前目录下的程序请写 ./%s）\n"},
    {"cudojo exec: %s: not an executable file\n", "cudojo exec：%s：不是可执行文件\n"},
    {"cudojo exec: --trace: %s not written: %s\n", "cudojo exec：--trace：没有写出 %s：%s\n"},
    {"the runtime sent no timeline (the program may have ended before it could)",
     "运行时没有发来时间线（程序可能在它发出之前就结束了）"},
    {"the program made no CUDA calls, so there is no timeline", "程序没有调用 CUDA，所以没有时间线"},
    {"cudojo exec: --trace: %s\n", "cudojo exec：--trace：%s\n"},
    {"cudojo exec: timeline%s written to %s (open it at https://ui.perfetto.dev or chrome://tracing)\n",
     "cudojo exec：时间线%s已写入 %s（用 https://ui.perfetto.dev 或 chrome://tracing 打开）\n"},
    {"cudojo exec: cudojo's GPU recorder (inject/libcudojo_inject.so) is not built, so the program's calls and timeline are not recorded (`make` builds it)\n",
     "cudojo exec：cudojo 的 GPU 记录器（inject/libcudojo_inject.so）没有构建，所以程序的调用和时间线不会被记录（`make` 会构建它）\n"},
    {"cudojo exec: %s has NVIDIA's CUDA runtime linked in (nvcc's default), so cudojo can neither see nor emulate its CUDA calls: rebuild it with `nvcc -cudart shared`\n",
     "cudojo exec：%s 静态链接了 NVIDIA 的 CUDA 运行时（nvcc 的默认做法），所以 cudojo 既看不到也无法模拟它的 CUDA 调用：请用 `nvcc -cudart shared` 重新构建\n"},
    {"cudojo exec: %s needs %s; such NVIDIA libraries call the GPU driver themselves, and cudojo's emulator runtime stands in for libcudart only: here their calls fail (an error status, or the program cannot start). Run it on a GPU.\n",
     "cudojo exec：%s 需要 %s；这类 NVIDIA 库自己调用 GPU 驱动，而 cudojo 的模拟器运行时只替代 libcudart：在这里它们的调用会失败（返回错误状态，或者程序无法启动）。请在 GPU 上运行它。\n"},
    {"cudojo exec: %s=%s runs NVIDIA's tool on a GPU only; on the emulator runtime its own checks and modeled timeline stand in for it\n",
     "cudojo exec：%s=%s 只在 GPU 上运行 NVIDIA 的工具；在模拟器运行时上由它自己的检查和模型估算的时间线代替\n"},
    {"the program has NVIDIA's CUDA runtime linked in statically: rebuild it with `nvcc -cudart shared` so that cudojo can record or emulate its CUDA calls",
     "程序静态链接了 NVIDIA 的 CUDA 运行时：请用 `nvcc -cudart shared` 重新构建，cudojo 才能记录或模拟它的 CUDA 调用"},
    {"the program needs %s; such NVIDIA libraries call the GPU driver themselves, and the emulator runtime stands in for libcudart only: there their calls fail",
     "程序需要 %s；这类 NVIDIA 库自己调用 GPU 驱动，而模拟器运行时只替代 libcudart：在那里它们的调用会失败"},
    /* cudojo class (app/cmd_class.c; the report's own text is app/tui/tui_class_render.c's) */
    {"instructors: where the class struggles, from a grading database", "讲师用：根据评分数据库看全班卡在哪里"},
    {"Reads GRADEDB (the grade.db of `cudojo grade --out DIR`, read only; its\n"
     "gradebook.json; or DIR itself) and shows, per exercise, the pass rate, the\n"
     "passed-fast rate, the median attempts and time to pass (from the students'\n"
     "progress records), the most common failure kinds (out of bounds, race,\n"
     "wrong result, too slow...), and the class's score histogram; then the\n"
     "groups of similar submissions and the submissions' problems.\n"
     "Options:\n"
     "  --html FILE         write the report as one self-contained HTML page (no\n"
     "                      scripts, nothing fetched) instead of printing it\n"
     "  --json              the computed report as JSON\n"
     "  --tui               show it in the workbench's class screen (q leaves)\n"
     "Exit status: 0 done, 2 when GRADEDB cannot be read or an option is wrong.\n",
     "读取 GRADEDB（`cudojo grade --out DIR` 的 grade.db，只读；或它的 gradebook.json；\n"
     "或 DIR 本身），按练习显示通过率、快速通过率、通过所需尝试次数和时间的中位数\n"
     "（来自学员的进度记录）、最常见的失败类型（越界、数据竞争、结果错误、太慢……），\n"
     "以及全班的分数直方图；然后是相似提交的分组和各提交的问题。\n"
     "选项：\n"
     "  --html FILE         把报告写成一个自包含的 HTML 页面（没有脚本，不从网上取任何\n"
     "                      东西），而不是打印出来\n"
     "  --json              以 JSON 输出计算出的报告\n"
     "  --tui               在工作台的班级界面里显示它（按 q 离开）\n"
     "退出状态：0 完成，2 读不了 GRADEDB 或选项有错。\n"},
    {"usage: cudojo class report GRADEDB [--html FILE] [--json] [--tui]\n",
     "用法：cudojo class report GRADEDB [--html FILE] [--json] [--tui]\n"},
    {"cudojo class: unknown subcommand '%s' (there is: report)\n", "cudojo class：未知子命令 '%s'（只有：report）\n"},
    {"cudojo class report: unknown option '%s'%s\n", "cudojo class report：未知选项 '%s'%s\n"},
    {" (--html needs a FILE)", "（--html 需要一个 FILE）"},
    {"cudojo class report: one GRADEDB only ('%s' is a second)\n",
     "cudojo class report：只能给一个 GRADEDB（'%s' 是第二个）\n"},
    {"cudojo class report: --tui and --json do not go together\n", "cudojo class report：--tui 和 --json 不能同时使用\n"},
    {"Class report written to %s\n", "班级报告已写入 %s\n"},
    /* the class report's failure kinds in words (app/class_report.c KIND_WORDS; --json keeps the ids) */
    {"out of bounds", "越界"},
    {"race", "数据竞争"},
    {"barrier misuse", "屏障用错"},
    {"uninitialised read", "未初始化读取"},
    {"wrong result", "结果错误"},
    {"too slow", "太慢"},
    {"no kernel launched", "没有启动核函数"},
    {"exercise error", "练习本身有错误"},
    {"other failure", "其他失败"},
    {"not submitted", "未提交"},
    {"not graded", "未评分"},
    {"failed", "未通过"},
    {"the gradebook", "成绩册"},
    /* cudojo lint: its problems, usage and tally (app/cmd_lint.c) */
    {"authors: what verify cannot see in a course pack (text, hints, files)",
     "供作者用：verify 看不到的课程包问题（文字、提示、文件）"},
    {"Checks a course pack (a folder of chapters, or one chapter folder; default:\n"
     "the course) without running anything, and prints each problem as\n"
     "file:line: message:\n"
     "  - loading errors and warnings (a missing file, fewer than 2 hints, an\n"
     "    unknown field)\n"
     "  - Chinese text missing: README.zh-CN.md, title_zh, hints_zh (one per hint)\n"
     "  - an exercise with no wrong variant\n"
     "  - a starter TODO that holds a line of the solution's code\n"
     "  - a README's \"Common mistakes\" row that says the emulator reports a finding\n"
     "    (out of bounds, race, uninitialised, bank conflict, uncoalesced) with no\n"
     "    row for that chapter in the pack's CLAIMS.tsv; CLAIMS.tsv rows that name a\n"
     "    missing exercise or file\n"
     "  - files in a chapter folder that no exercise uses or names (a module,\n"
     "    lib/NAME.lua, is used when a used file requires it)\n"
     "  - require(\"NAME\") of a module that is missing or does not compile, at\n"
     "    the requiring line\n"
     "  - TODO(author) stubs left by `cudojo new`\n"
     "Exit status 0 when clean, 1 when there are problems, 2 when the pack\n"
     "cannot be read.\n",
     "检查一个课程包（若干章的文件夹，或一章的文件夹；默认：课程本身），不运行任何东西，\n"
     "把每个问题打印成 文件:行: 消息：\n"
     "  - 加载时的错误和警告（缺文件、提示少于 2 条、未知字段）\n"
     "  - 缺少中文：README.zh-CN.md、title_zh、hints_zh（每条提示一条）\n"
     "  - 没有错误变体的练习\n"
     "  - 含有参考解答某行代码的起始代码 TODO\n"
     "  - README 的 \"Common mistakes\" 表中说模拟器会报告某类发现的问题（越界、数据竞争、\n"
     "    未初始化、bank 冲突、未合并访问）的行，而课程包的 CLAIMS.tsv 中没有该章对应的行；\n"
     "    CLAIMS.tsv 中指向不存在的练习或文件的行\n"
     "  - 章文件夹中没有任何练习使用或提到的文件（模块 lib/NAME.lua 被某个用到的文件\n"
     "    require 时算作用到）\n"
     "  - require(\"NAME\") 一个不存在或编译不了的模块，报告在 require 的那一行\n"
     "  - `cudojo new` 留下的 TODO(author) 占位\n"
     "退出状态：没有问题时为 0，有问题时为 1，读不了课程包时为 2。\n"},
    {"usage: cudojo lint [PACK]\n", "用法：cudojo lint [PACK]\n"},
    {"cudojo lint: %s: no such directory\n", "cudojo lint：%s：没有这个目录\n"},
    {"%s: %d problems in %d chapter%s\n", "%s：%d 个问题，共 %d 章%.0s\n"},
    {"the TODO gives away the solution's line `%s`: say what to do, not the code",
     "这个 TODO 泄露了参考解答的一行 `%s`：说要做什么，不要给出代码"},
    {"no exercise uses this file (not a starter, solution or wrong variant, nor named by one): list it in an exercise or delete it",
     "没有练习用到这个文件（它不是起始代码、参考解答或错误变体，也没有被它们提到）：把它列进某个练习，或删掉它"},
    {"a TODO(author) stub from `cudojo new` is still here: write the text",
     "`cudojo new` 留下的 TODO(author) 占位还在这里：把内容写上"},
    {"an out-of-bounds finding", "越界的发现"},
    {"a race finding", "数据竞争的发现"},
    {"an uninitialised-read finding", "未初始化读取的发现"},
    {"a bank-conflict finding", "bank 冲突的发现"},
    {"an uncoalesced-access finding", "未合并访问的发现"},
    {"says the emulator reports %s here, but %s has no row for %s with a finding %s*: add one (a file that makes the mistake) so tests/lessons/test_claims.sh checks the claim",
     "这里说模拟器会报告%s，但 %s 中没有 %s 的、发现的问题代码为 %s* 的行：加一行（一个犯这个错误的文件），让 tests/lessons/test_claims.sh 检查这个说法"},
    {"a row needs 5 tab-separated columns: chapter folder, exercise id, file, finding code, the claim",
     "每行需要 5 个用制表符分隔的列：章文件夹、练习 id、文件、发现的问题代码、说法"},
    {"chapter %s has no exercise '%s'", "第 %s 章没有练习 '%s'"},
    {"%s/%s does not exist", "%s/%s 不存在"},
    {"no title_zh: the exercise's title in Chinese", "没有 title_zh：练习的中文标题"},
    {"no hints_zh: the %d hint%s in Chinese, in the same order", "没有 hints_zh：%d 条提示%.0s的中文，顺序相同"},
    {"%d hints_zh for %d hints: give each hint in Chinese", "%d 条 hints_zh 对应 %d 条提示：每条提示都要给出中文"},
    {"no wrong variant: add wrong = { \"solutions/wrong/%s-....cu\" }, a typical mistake verify checks fails",
     "没有错误变体：加上 wrong = { \"solutions/wrong/%s-....cu\" }，一个 verify 会检查其不通过的典型错误"},
    {"no title_zh: the chapter's title in Chinese", "没有 title_zh：章的中文标题"},
    {"missing: the lesson in Chinese (README.md's translation)", "缺少：中文课文（README.md 的翻译）"},
    {"missing: the lesson text", "缺少：课文"},
    /* cudojo new (app/cmd_new.c; the files it writes are the author's to edit and stay English) */
    {"authors: a new chapter or exercise that verify already passes", "供作者用：新建一章或一个 verify 已能通过的练习"},
    {"new chapter ID makes the folder NN-ID (NN: the next chapter number) in the\n"
     "pack (--lessons DIR, default: the current directory) with chapter.lua,\n"
     "README.md and README.zh-CN.md.\n"
     "\n"
     "new exercise CHAPTER ID adds an exercise to a chapter (its id, its folder\n"
     "name, or the path of a folder holding chapter.lua) and lists it in\n"
     "chapter.lua: ID.lua with a CPU reference, the starter ID.cu, the solution\n"
     "solutions/ID.cu and one wrong variant under solutions/wrong/. As written,\n"
     "`cudojo verify` passes it: the starter fails, the solution passes, the\n"
     "wrong variant fails. TODO(author) marks what to write; lessons/AUTHORING.md\n"
     "goes on from there.\n"
     "\n"
     "Options:\n"
     "  --program    a whole-program exercise (main(), built by nvcc) instead of\n"
     "               a kernel compiled by NVRTC\n"
     "\n"
     "Nothing is overwritten: when a file exists already, nothing is written.\n",
     "new chapter ID 在课程包（--lessons DIR，默认：当前目录）里建文件夹 NN-ID（NN：下一个\n"
     "章号），内含 chapter.lua、README.md 和 README.zh-CN.md。\n"
     "\n"
     "new exercise CHAPTER ID 给一章（用它的 id、文件夹名，或含 chapter.lua 的文件夹路径指定）\n"
     "加一个练习并把它列进 chapter.lua：带 CPU 参考实现的 ID.lua、起始代码 ID.cu、参考解答\n"
     "solutions/ID.cu，以及 solutions/wrong/ 下的一个错误变体。照原样 `cudojo verify` 就能\n"
     "通过：起始代码不通过，参考解答通过，错误变体不通过。TODO(author) 标出要写的地方；\n"
     "之后见 lessons/AUTHORING.md。\n"
     "\n"
     "选项：\n"
     "  --program    完整程序练习（有 main()，由 nvcc 构建），而不是由 NVRTC 编译的核函数\n"
     "\n"
     "不会覆盖任何东西：有文件已经存在时，什么都不写。\n"},
    {"cudojo new chapter: '%s' is not a chapter id: use letters, digits, '-', '_' and '.', starting with a letter or digit (e.g. shared-memory)\n",
     "cudojo new chapter：'%s' 不是章 id：请用字母、数字、'-'、'_' 和 '.'，以字母或数字开头（例如 shared-memory）\n"},
    {"cudojo new chapter: --lessons %s: no such directory\n", "cudojo new chapter：--lessons %s：没有这个目录\n"},
    {"cudojo new chapter: the pack has a chapter '%s' already (%s)\n", "cudojo new chapter：课程包里已经有一章 '%s'（%s）\n"},
    {"made chapter '%s' in %s/ (chapter.lua, README.md, README.zh-CN.md)\nnext: cudojo new exercise %s EXERCISE-ID%s%s\n",
     "已建好章 '%s'，在 %s/ 中（chapter.lua、README.md、README.zh-CN.md）\n下一步：cudojo new exercise %s 练习ID%s%s\n"},
    {"no chapter '%s' in %s (give a chapter id, its folder name, or the path of a folder holding chapter.lua; `cudojo new chapter %s` makes one)",
     "没有章 '%s'（在 %s 中）（请给出章 id、它的文件夹名，或含 chapter.lua 的文件夹路径；`cudojo new chapter %s` 可以新建一章）"},
    {"cudojo new exercise: '%s' is not an exercise id: use letters, digits, '-', '_' and '.', starting with a letter or digit (e.g. vector-add)\n",
     "cudojo new exercise：'%s' 不是练习 id：请用字母、数字、'-'、'_' 和 '.'，以字母或数字开头（例如 vector-add）\n"},
    {"cudojo new exercise: %s\n", "cudojo new exercise：%s\n"},
    {"cudojo new exercise: the course has an exercise '%s' already (%s); exercise ids are unique across the course\n",
     "cudojo new exercise：课程里已经有练习 '%s'（%s）；练习 id 在整个课程中唯一\n"},
    {"cudojo new exercise: %s has no `exercises = { ... }` list to add '%s' to\n",
     "cudojo new exercise：%s 里没有可以加入 '%s' 的 `exercises = { ... }` 列表\n"},
    {"made program exercise '%s' in %s/:\n", "已建好完整程序练习 '%s'，在 %s/ 中：\n"},
    {"made kernel exercise '%s' in %s/:\n", "已建好核函数练习 '%s'，在 %s/ 中：\n"},
    {"and listed it in %s. Check it with: cudojo verify %s\n", "并已列进 %s。用这个检查它：cudojo verify %s\n"},
    {"cudojo new: unknown option '%s' (see cudojo new --help)\n", "cudojo new：未知选项 '%s'（见 cudojo new --help）\n"},
    {"usage: cudojo new chapter ID\n       cudojo new exercise CHAPTER ID [--program]\n",
     "用法：cudojo new chapter ID\n      cudojo new exercise CHAPTER ID [--program]\n"},
    /* cudojo verify --mutants (app/mutants_run.c; a mutation's name stays the code it changes) */
    /* "  - %-20s skipped: needs a GPU\n" is cudojo verify's (base/i18n_zh.c) */
    {"  %s✗%s %-20s the solution %s does not pass, so its mutants were not run: %s\n",
     "  %s✗%s %-20s 参考解答 %s 不通过，所以没有运行它的变异体：%s\n"},
    {"  %s%s%s %-20s %d mutants: %d killed", "  %s%s%s %-20s %d 个变异体：%d 个被杀死"},
    {", %d survived", "，%d 个存活"},
    {", %d invalid", "，%d 个无效"},
    {", %d equivalent", "，%d 个等价"},
    {", %d undetected", "，%d 个检测不到"},
    {"      %s:%d: %s survived (the checks pass)\n        - %s\n        + %s\n",
     "      %s:%d: %s 存活了（检查都通过）\n        - %s\n        + %s\n"},
    {"\rmutants: %d of %d runs, %d survived, %.0f s%s", "\r变异体：%d/%d 次运行，%d 个存活，%.0f 秒%s"},
    {"mutants: %d of %d runs, %d survived, %.0f s\n", "变异体：%d/%d 次运行，%d 个存活，%.0f 秒\n"},
    {"verify --mutants: cannot make a temporary folder: %s\n", "verify --mutants：无法建立临时文件夹：%s\n"},
    {"\n%d exercises, %d mutants: %d killed, %d survived, %d invalid (do not compile), %d equivalent (mutants_equivalent), %d undetected (mutants_undetected)%s\n",
     "\n%d 个练习，%d 个变异体：%d 个被杀死，%d 个存活，%d 个无效（编译不过），%d 个等价（mutants_equivalent），%d 个检测不到（mutants_undetected）%s\n"},
    {"; and problems above", "；另有上面列出的问题"},
    {", %d timed out", "，%d 个超时"},
    {"      %s:%d: %s timed out twice (%.3g s, then %.3g s): not known to be killed; run again on a quieter machine or with fewer --jobs\n        - %s\n        + %s\n",
     "      %s:%d: %s 两次超时（%.3g 秒，然后 %.3g 秒）：不知道它是否被杀死；请在较空闲的机器上或用更少的 --jobs 再运行\n        - %s\n        + %s\n"},
    {"%d timed out twice: not known to be killed (above)\n", "%d 个两次超时：不知道它们是否被杀死（见上）\n"},
    {"%d allowed by their exercise were not run (--run-allowed runs them)\n",
     "%d 个被练习允许的变异体没有运行（--run-allowed 会运行它们）\n"},
};

const size_t I18N_ZH_AUTHORS_COUNT = sizeof I18N_ZH_AUTHORS / sizeof I18N_ZH_AUTHORS[0];
