//! Was the machine quiet while a scenario ran? A busy machine cannot pass for a slow
//! program.
//!
//! Around each measurement the harness reads how much CPU time the whole machine spent
//! busy (`/proc/stat`: user, nice, system and steal time over every core) and how much
//! of it was ours: this process, its children and their children (each one's own and
//! its waited-for children's time from `/proc/<pid>/stat`), and the model server the
//! AI stages talk to, whose work is the figure ([`count_as_ours`]). Kernel threads are
//! left out of both sides: their work (writing back our journal's pages, say) belongs
//! to whoever caused it, and cannot be told apart. The rest, over the measurement's wall
//! time, is the cores other processes used ([`Load::others_cores`]), recorded with the
//! 1-minute load average. A timed figure measured while others used more than
//! [`BUSY_CORES`] is measured once more ([`quietest`]), the quieter of the two is kept,
//! and if even that one was busy, every report flags it.
//!
//! Linux only: elsewhere nothing is read and the fields stay empty (`None`), which no
//! report flags.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Cores' worth of CPU time other processes may use while a scenario runs before its
/// figure is called busy: on this project's 2-core machines a quarter of a core taken
/// by a neighbour already moves a p95.
pub const BUSY_CORES: f64 = 0.25;

/// What a measurement ran under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// Wall time of the measurement, seconds.
    pub wall_s: f64,
    /// The 1-minute load average at its end (`/proc/loadavg`).
    pub load_1m: Option<f64>,
    /// CPU time other processes used during it, over its wall time: 1.0 is one core
    /// kept busy throughout.
    pub others_cores: Option<f64>,
}

impl Load {
    /// Whether other processes used more than [`BUSY_CORES`] meanwhile.
    pub fn busy(&self) -> bool {
        self.others_cores.is_some_and(|c| c > BUSY_CORES)
    }

    /// The quieter of two measurements' loads: `true` when `self` is (an unknown load is
    /// never quieter than a known one).
    fn quieter_than(&self, other: &Load) -> bool {
        match (self.others_cores, other.others_cores) {
            (Some(a), Some(b)) => a <= b,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// Several measurements' loads as one: wall time added up, other processes' cores
    /// averaged over it, the highest load average. For a figure made of several
    /// measurements (an import's rounds, a ratio of two timings).
    pub fn combined(loads: &[Load]) -> Option<Load> {
        let wall_s: f64 = loads.iter().map(|l| l.wall_s).sum();
        let first = loads.first()?;
        let others = loads
            .iter()
            .map(|l| l.others_cores.map(|c| c * l.wall_s))
            .sum::<Option<f64>>()
            .map(|busy_s| if wall_s > 0.0 { busy_s / wall_s } else { 0.0 });
        let load_1m = loads.iter().filter_map(|l| l.load_1m).reduce(f64::max);
        Some(Load {
            wall_s: if wall_s > 0.0 { wall_s } else { first.wall_s },
            load_1m,
            others_cores: others,
        })
    }

    /// "other processes used 0.62 cores (load average 3.10)".
    pub fn describe(&self) -> String {
        let cores = self
            .others_cores
            .map_or("an unknown share of".to_owned(), |c| format!("{c:.2}"));
        let load = self
            .load_1m
            .map_or(String::new(), |l| format!(" (load average {l:.2})"));
        format!("other processes used {cores} cores{load}")
    }
}

/// A measurement made twice because the first was busy: the other one's load, and
/// which of the two the figure is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Retry {
    /// The load of the measurement not kept.
    pub discarded: Load,
    /// Whether the figure is the second measurement (else the first).
    pub kept_second: bool,
}

impl Retry {
    /// What a scenario's note says about it, given the kept measurement's load.
    pub fn describe(&self, kept: &Load) -> String {
        let (first, second) = match self.kept_second {
            true => (&self.discarded, kept),
            false => (kept, &self.discarded),
        };
        format!(
            "measured twice, the machine being busy: during the first {}, during the second {}; the {} is kept",
            first.describe(),
            second.describe(),
            if self.kept_second { "second" } else { "first" }
        )
    }
}

/// Runs `measure`, and once more when other processes were busy meanwhile; returns the
/// quieter of the two results with its load and, when measured twice, the other's.
/// A second measurement that fails leaves the first.
pub fn quietest<T>(
    remeasure: bool,
    mut measure: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<(T, Load, Option<Retry>)> {
    let probe = Probe::start();
    let first = measure()?;
    let (first_load, _) = probe.finish();
    if !remeasure || !first_load.busy() {
        return Ok((first, first_load, None));
    }
    // A measurement shorter than the window a load is read over is judged by the last
    // second; the pause keeps the first measurement out of the second's judgement.
    if first_load.wall_s < MIN_WINDOW_S {
        std::thread::sleep(std::time::Duration::from_secs_f64(
            MIN_WINDOW_S - first_load.wall_s,
        ));
    }
    let probe = Probe::start();
    let Ok(second) = measure() else {
        return Ok((first, first_load, None));
    };
    let (second_load, _) = probe.finish();
    Ok(match second_load.quieter_than(&first_load) {
        true => (
            second,
            second_load,
            Some(Retry {
                discarded: first_load,
                kept_second: true,
            }),
        ),
        false => (
            first,
            first_load,
            Some(Retry {
                discarded: second_load,
                kept_second: false,
            }),
        ),
    })
}

/// The measurements one figure is made of (an import's rounds, Ask's questions, a
/// model's transcriptions), each measured once more when the machine was busy during
/// it: finer than measuring the whole series again.
#[derive(Debug, Default)]
pub struct Series {
    loads: Vec<Load>,
    twice: usize,
}

impl Series {
    /// Runs one measurement of the series through [`quietest`].
    pub fn measure<T>(
        &mut self,
        remeasure: bool,
        measure: impl FnMut() -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let (value, load, retry) = quietest(remeasure, measure)?;
        self.loads.push(load);
        self.twice += usize::from(retry.is_some());
        Ok(value)
    }

    /// The kept measurements' combined load.
    pub fn load(&self) -> Option<Load> {
        Load::combined(&self.loads)
    }

    /// What a note says when some were measured twice: "2 of 17 questions measured
    /// twice, …".
    pub fn remeasured(&self, what: &str) -> Option<String> {
        (self.twice > 0).then(|| {
            format!(
                "{} of {} {what} measured twice, the machine being busy, the quieter of each kept",
                self.twice,
                self.loads.len()
            )
        })
    }
}

/// Watches the machine from its start until [`Probe::finish`].
#[derive(Debug, Clone)]
pub struct Probe {
    started: Instant,
    mark: Option<Mark>,
}

/// The shortest stretch of time a load is read over. `/proc` counts CPU time in
/// hundredths of a second, so over a few milliseconds (a fast scenario's 200 samples)
/// a single tick would read as several cores: a shorter measurement is judged by the
/// last second up to its end, the machine's load around the time it ran.
const MIN_WINDOW_S: f64 = 1.0;

/// Marks taken in the last [`HISTORY_S`], so a short measurement can be judged over the
/// last [`MIN_WINDOW_S`]; each [`Probe`] start and finish adds one.
static HISTORY: Mutex<VecDeque<Mark>> = Mutex::new(VecDeque::new());
const HISTORY_S: f64 = 10.0;

impl Probe {
    pub fn start() -> Probe {
        Probe {
            mark: Mark::now(),
            started: Instant::now(),
        }
    }

    /// Seconds since the start.
    pub fn elapsed_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// The load since the start (over the last second when that was shorter), and the
    /// CPU seconds this process and the others counted as ours used since the start.
    pub fn finish(&self) -> (Load, Option<f64>) {
        let (load, ours_s, _) = self.finish_at(Mark::now());
        (load, ours_s)
    }

    /// [`Probe::finish`], and a probe started where this one finished, for the next
    /// stretch of time.
    pub fn lap(&self) -> (Load, Probe) {
        let end = Mark::now();
        let (load, _, next) = self.finish_at(end);
        (load, next)
    }

    fn finish_at(&self, end: Option<Mark>) -> (Load, Option<f64>, Probe) {
        let wall_s = self.elapsed_s();
        let (others_cores, ours_s) = match (&self.mark, &end) {
            (Some(start), Some(end)) => {
                let earlier = match wall_s >= MIN_WINDOW_S {
                    true => None,
                    false => Mark::before(end.at, MIN_WINDOW_S),
                };
                let from = earlier.as_ref().unwrap_or(start);
                (
                    Some(end.cpu.others_since(&from.cpu, (end.at - from.at).as_secs_f64())),
                    Some(end.cpu.ours.saturating_sub(start.cpu.ours) as f64 / TICKS_PER_S),
                )
            }
            _ => (None, None),
        };
        let next = Probe {
            started: Instant::now(),
            mark: end,
        };
        let load = Load {
            wall_s,
            load_1m: load_average(),
            others_cores,
        };
        (load, ours_s, next)
    }
}

/// The machine's CPU counters at one moment.
#[derive(Debug, Clone)]
struct Mark {
    at: Instant,
    cpu: Cpu,
}

impl Mark {
    /// The counters now (`None` off Linux), kept in the history.
    fn now() -> Option<Mark> {
        let mark = Mark {
            cpu: Cpu::now()?,
            at: Instant::now(),
        };
        let mut history = HISTORY.lock().unwrap_or_else(|e| e.into_inner());
        while history
            .front()
            .is_some_and(|m| (mark.at - m.at).as_secs_f64() > HISTORY_S)
        {
            history.pop_front();
        }
        history.push_back(mark.clone());
        Some(mark)
    }

    /// The latest mark at least `window_s` before `end`, else the oldest one kept.
    fn before(end: Instant, window_s: f64) -> Option<Mark> {
        let history = HISTORY.lock().unwrap_or_else(|e| e.into_inner());
        history
            .iter()
            .rev()
            .find(|m| end.saturating_duration_since(m.at).as_secs_f64() >= window_s)
            .or_else(|| history.front())
            .cloned()
    }
}

/// Processes whose CPU time is counted as ours, with their descendants: the model
/// server the AI stages measure.
static OURS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Counts the process `pid` (and its descendants) as ours from now on.
pub fn count_as_ours(pid: u32) {
    let mut ours = OURS.lock().unwrap_or_else(|e| e.into_inner());
    if !ours.contains(&pid) {
        ours.push(pid);
    }
}

/// The machine's busy time, its kernel threads' and ours, in clock ticks.
#[derive(Debug, Clone)]
struct Cpu {
    busy: u64,
    /// Each kernel thread's ticks by pid, in pid order: they come and go, so their
    /// share of a stretch of time is summed thread by thread.
    kernel: Vec<(u32, u64)>,
    ours: u64,
}

/// `/proc` reports CPU time in `USER_HZ` ticks, which Linux fixes at 100 a second for
/// user space whatever the kernel's own tick rate.
const TICKS_PER_S: f64 = 100.0;

impl Cpu {
    #[cfg(target_os = "linux")]
    fn now() -> Option<Cpu> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let processes = processes();
        let ours = ours(
            &processes,
            std::process::id(),
            &OURS.lock().unwrap_or_else(|e| e.into_inner()),
        );
        Some(Cpu {
            busy: machine_busy(&stat)?,
            kernel: kernel_threads(&processes),
            ours,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn now() -> Option<Cpu> {
        None
    }

    /// Cores other processes used between `before` and `self`, `wall_s` apart.
    fn others_since(&self, before: &Cpu, wall_s: f64) -> f64 {
        let busy = self.busy.saturating_sub(before.busy) as f64;
        let ours = self.ours.saturating_sub(before.ours) as f64;
        let kernel = kernel_since(&before.kernel, &self.kernel) as f64;
        ((busy - ours - kernel).max(0.0) / TICKS_PER_S) / wall_s.max(1e-3)
    }
}

/// The machine's busy ticks from `/proc/stat`'s first line: user, nice, system and
/// steal (time another virtual machine had our core). Idle and I/O wait are not busy;
/// interrupt time is not any process's, ours or others'.
#[cfg(target_os = "linux")]
fn machine_busy(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    Some(field(0) + field(1) + field(2) + field(7))
}

/// One process from `/proc/<pid>/stat`.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Copy, PartialEq)]
struct Process {
    pid: u32,
    ppid: u32,
    /// Its own user and system time and its waited-for children's, in ticks: a child
    /// that exits moves its time into its parent's, so the sum over a tree stays whole.
    ticks: u64,
}

/// Parses a `/proc/<pid>/stat` line. The command name sits in parentheses and may hold
/// spaces or parentheses itself, so the fields are read after the last `)`.
#[cfg(target_os = "linux")]
fn parse_stat(text: &str) -> Option<Process> {
    let (head, rest) = text.rsplit_once(')')?;
    let pid = head.split_whitespace().next()?.parse().ok()?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields from the state (field 3 of proc(5)): ppid is 4, utime..cstime 14..17.
    let number = |field: usize| fields.get(field - 3)?.parse::<u64>().ok();
    let ticks = number(14)? + number(15)? + number(16)? + number(17)?;
    Some(Process {
        pid,
        ppid: u32::try_from(number(4)?).ok()?,
        ticks,
    })
}

#[cfg(target_os = "linux")]
fn processes() -> Vec<Process> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|text| parse_stat(&text))
        .collect()
}

/// Linux's kernel threads (`kthreadd`, pid 2, and its children) and their ticks, in pid
/// order.
#[cfg(target_os = "linux")]
fn kernel_threads(processes: &[Process]) -> Vec<(u32, u64)> {
    let mut threads: Vec<(u32, u64)> = processes
        .iter()
        .filter(|p| p.pid == 2 || p.ppid == 2)
        .map(|p| (p.pid, p.ticks))
        .collect();
    threads.sort_unstable();
    threads
}

/// The ticks kernel threads used between two readings: each one's growth, a thread
/// started since counted whole, one that ended since left out (its last ticks are not
/// known).
fn kernel_since(before: &[(u32, u64)], after: &[(u32, u64)]) -> u64 {
    after
        .iter()
        .map(
            |(pid, ticks)| match before.binary_search_by_key(pid, |(p, _)| *p) {
                Ok(i) => ticks.saturating_sub(before[i].1),
                Err(_) => *ticks,
            },
        )
        .sum()
}

/// The ticks of `me`, the processes in `also` and all their descendants.
#[cfg(target_os = "linux")]
fn ours(processes: &[Process], me: u32, also: &[u32]) -> u64 {
    let mut roots: Vec<u32> = vec![me];
    roots.extend(also.iter().filter(|p| **p != me));
    let mut counted: Vec<u32> = Vec::new();
    let mut frontier = roots;
    while let Some(pid) = frontier.pop() {
        if counted.contains(&pid) {
            continue;
        }
        counted.push(pid);
        frontier.extend(processes.iter().filter(|p| p.ppid == pid).map(|p| p.pid));
    }
    processes
        .iter()
        .filter(|p| counted.contains(&p.pid))
        .map(|p| p.ticks)
        .sum()
}

/// The 1-minute load average (Linux).
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The process listening on `host`'s TCP port on this machine (Linux), found through
/// `/proc/net/tcp{,6}` and the sockets each process holds: the model server, whose work
/// an AI stage's figures are. `None` for a remote host or when it cannot be told.
pub fn server_pid(host: &str) -> Option<u32> {
    let url = url_port(host)?;
    #[cfg(target_os = "linux")]
    {
        let mut inodes = Vec::new();
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let text = std::fs::read_to_string(table).unwrap_or_default();
            inodes.extend(listening_inodes(&text, url));
        }
        if inodes.is_empty() {
            return None;
        }
        let dir = std::fs::read_dir("/proc").ok()?;
        for entry in dir.filter_map(Result::ok) {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
                continue;
            };
            for fd in fds.filter_map(Result::ok) {
                let target = std::fs::read_link(fd.path()).unwrap_or_default();
                let target = target.to_string_lossy();
                if inodes.iter().any(|i| target == format!("socket:[{i}]")) {
                    return Some(pid);
                }
            }
        }
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = url;
        None
    }
}

/// The port of a loopback `http://host:port` (11434 when none is given, Ollama's).
fn url_port(host: &str) -> Option<u16> {
    let rest = host.split_once("://").map_or(host, |(_, r)| r);
    let authority = rest.split('/').next()?;
    // "[::1]:9": the port follows the bracket; "127.0.0.1:9": the last colon.
    let split_at = authority.rfind(']').unwrap_or(0);
    let (name, port) = match authority[split_at..].rfind(':') {
        Some(colon) => (
            &authority[..split_at + colon],
            authority[split_at + colon + 1..].parse().ok()?,
        ),
        None => (authority, 11434),
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]").then_some(port)
}

/// Inodes of the sockets listening on `port` in a `/proc/net/tcp` table.
#[cfg(target_os = "linux")]
fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let local_port = u16::from_str_radix(f.get(1)?.rsplit_once(':')?.1, 16).ok()?;
            // State 0A is LISTEN.
            (local_port == port && *f.get(3)? == "0A").then(|| f.get(9)?.parse().ok())?
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn reads_a_process_line_whose_name_holds_parentheses() {
        let line = "4481 (py (serve) x) S 1 4481 4481 0 -1 4194560 100 0 0 0 120 30 7 3 20 0 5 0";
        assert_eq!(
            parse_stat(line),
            Some(Process {
                pid: 4481,
                ppid: 1,
                ticks: 160
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn machine_busy_time_leaves_out_idle_wait_and_interrupts() {
        let stat = "cpu  1000 5 200 9000 70 11 13 2 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        assert_eq!(machine_busy(stat), Some(1207));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn ours_is_this_process_its_descendants_and_the_counted_servers() {
        let p = |pid, ppid, ticks| Process { pid, ppid, ticks };
        let all = [
            p(10, 1, 5),
            p(11, 10, 7),
            p(12, 11, 11),
            p(20, 1, 100),
            p(30, 1, 1000),
            p(31, 30, 3),
            p(2, 0, 1),
            p(40, 2, 50),
        ];
        assert_eq!(ours(&all, 10, &[]), 23);
        assert_eq!(ours(&all, 10, &[30]), 1026);
        assert_eq!(kernel_threads(&all), [(2, 1), (40, 50)]);
        // A kernel thread that ended and one that started: only what is known counts.
        assert_eq!(kernel_since(&[(2, 1), (40, 50)], &[(2, 4), (41, 7)]), 10);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_model_server_is_found_by_its_port() {
        assert_eq!(url_port("http://127.0.0.1:18434"), Some(18434));
        assert_eq!(url_port("http://localhost"), Some(11434));
        assert_eq!(url_port("http://[::1]:9/"), Some(9));
        assert_eq!(url_port("http://example.com:11434"), None);
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:4812 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0\n   1: 0100007F:4812 0100007F:C000 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0\n";
        assert_eq!(listening_inodes(table, 0x4812), [4242]);
        // This process listens on a port of its own: it is found by it.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        if cfg!(target_os = "linux") {
            assert_eq!(
                server_pid(&format!("http://127.0.0.1:{port}")),
                Some(std::process::id())
            );
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_child_process_works_for_us_not_against_us() {
        let probe = Probe::start();
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1000));
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
        let child_s = parse_stat(&stat).unwrap().ticks as f64 / TICKS_PER_S;
        let running = probe.finish().1.unwrap();
        assert!(child_s > 0.05, "the child ran {child_s} s");
        // Counted while it runs, and after: killed and waited for, its time is in this
        // process's children's time.
        assert!(
            running >= child_s - 0.02,
            "ours {running} s, the child's {child_s} s"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let (_, ours_s) = probe.finish();
        assert!(
            ours_s.unwrap() >= child_s - 0.02,
            "ours {ours_s:?}, the child's {child_s} s"
        );
    }

    #[test]
    fn combined_loads_average_over_the_wall_time() {
        let l = |wall_s, cores| Load {
            wall_s,
            load_1m: Some(cores * 2.0),
            others_cores: Some(cores),
        };
        let c = Load::combined(&[l(3.0, 0.0), l(1.0, 1.0)]).unwrap();
        assert_eq!(
            (c.wall_s, c.others_cores, c.load_1m),
            (4.0, Some(0.25), Some(2.0))
        );
        assert!(!c.busy());
        assert!(Load::combined(&[]).is_none());
    }
}
