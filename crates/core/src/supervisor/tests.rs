//! Unit tests of the supervisor without the guard (no `agent-bridge` binary here); the guard is
//! covered through the real binary by the conformance suite (`processes`, `daemons`).

use super::*;

fn sh(script: &str) -> SpawnSpec {
    SpawnSpec {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        ..Default::default()
    }
}

/// The first stdout line as a pid.
async fn first_pid(child: &mut ManagedChild) -> libc::pid_t {
    let mut lines = child.take_stdout_lines().expect("stdout");
    match lines.next_line().await {
        Some(Line::Text(t)) => t.trim().parse().expect("a pid"),
        other => panic!("expected a pid line, got {other:?}"),
    }
}

fn alive(pid: libc::pid_t) -> bool {
    crate::proc_info::stat(pid).is_some_and(|p| !p.is_zombie())
}

#[tokio::test]
async fn a_missing_cwd_is_reported_as_such() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gone = dir.path().join("gone");
    let err = ManagedChild::spawn(&sh("true").cwd(&gone)).expect_err("no such folder");
    assert!(
        matches!(&err, SpawnError::MissingCwd { cwd } if *cwd == gone),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!("the working folder `{}` does not exist", gone.display())
    );
    // Checked before the program: a missing program in a missing folder is about the folder.
    let spec = SpawnSpec {
        program: "no-such-program-here".into(),
        ..Default::default()
    };
    let err = ManagedChild::spawn(&spec.cwd(&gone)).expect_err("no such folder");
    assert!(matches!(err, SpawnError::MissingCwd { .. }), "{err:?}");
}

#[tokio::test]
async fn a_cwd_that_is_a_file_is_reported_as_such() {
    let file = tempfile::NamedTempFile::new().expect("temp file");
    let err = ManagedChild::spawn(&sh("true").cwd(file.path())).expect_err("not a folder");
    assert!(matches!(err, SpawnError::CwdNotAFolder { .. }), "{err:?}");
    assert!(err.to_string().contains("is not a folder"), "{err}");
    let below = file.path().join("sub");
    let err = ManagedChild::spawn(&sh("true").cwd(&below)).expect_err("no such folder");
    assert!(matches!(err, SpawnError::MissingCwd { .. }), "{err:?}");
}

#[tokio::test]
async fn an_existing_cwd_is_used() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = ManagedChild::spawn(&sh("pwd").cwd(dir.path())).expect("spawn");
    let mut lines = child.take_stdout_lines().expect("stdout");
    let Some(Line::Text(pwd)) = lines.next_line().await else {
        panic!("no pwd output");
    };
    let want = dir.path().canonicalize().expect("canonical");
    assert_eq!(
        Path::new(pwd.trim()).canonicalize().expect("canonical"),
        want
    );
    assert!(child.wait().await.expect("wait").success());
}

#[tokio::test]
async fn each_spawn_gets_its_own_private_dirs_under_tmpdir_removed_with_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let spec = SpawnSpec {
        private_dirs: vec!["TMUX_TMPDIR".into()],
        ..sh("test -d \"$TMUX_TMPDIR\" && echo \"$TMUX_TMPDIR\"")
    }
    .env("TMPDIR", tmp.path().display().to_string());
    let mut dirs = Vec::new();
    for _ in 0..2 {
        let mut child = ManagedChild::spawn(&spec).expect("spawn");
        let mut lines = child.take_stdout_lines().expect("stdout");
        let Some(Line::Text(dir)) = lines.next_line().await else {
            panic!("the variable is not a directory");
        };
        let dir = PathBuf::from(dir.trim());
        assert_eq!(dir.parent(), Some(tmp.path()), "{}", dir.display());
        assert!(child.wait().await.expect("wait").success());
        assert!(dir.is_dir(), "removed while the child is kept");
        drop(child);
        assert!(!dir.exists(), "{} outlived its process", dir.display());
        dirs.push(dir);
    }
    assert_ne!(dirs[0], dirs[1], "two spawns share a directory");
}

#[tokio::test]
async fn kill_stops_the_group_and_waits_for_it() {
    let mut child = ManagedChild::spawn(&sh("sleep 30 & echo $!; wait")).expect("spawn");
    let sleep = first_pid(&mut child).await;
    assert!(alive(sleep));
    child.kill().await;
    assert!(child.try_exited().is_some(), "the leader is reaped");
    assert!(!alive(sleep), "the group member is gone when kill returns");
}

#[tokio::test]
async fn wait_kills_what_the_leader_left_before_reaping_it() {
    let mut child = ManagedChild::spawn(&sh("sleep 30 & echo $!")).expect("spawn");
    let sleep = first_pid(&mut child).await;
    assert!(child.wait().await.expect("wait").success());
    assert!(!child.leader_unreaped());
    // SIGKILLed while the zombie leader held the group id; reaped by init by now or soon.
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while alive(sleep) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(!alive(sleep), "the leader's group member outlived it");
}

/// Once the leader is reaped its pid, the group's id, may be reused: the group is never
/// signalled again, whoever reaped it.
#[tokio::test]
async fn a_reaped_leader_s_group_is_never_signalled() {
    let mut child = ManagedChild::spawn(&sh("sleep 30 & echo $!")).expect("spawn");
    let sleep = first_pid(&mut child).await;
    // Reaped behind the supervisor's back (no group kill on the way).
    assert!(child.child.wait().await.expect("wait").success());
    assert!(!child.leader_unreaped());
    assert!(child.try_exited().is_some());
    child.kill_now();
    child.kill().await;
    child.shutdown().await;
    assert!(child.wait().await.expect("wait").success());
    drop(child);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let still_there = alive(sleep);
    // SAFETY: kill(2) has no memory-safety preconditions; `sleep` is our orphaned grandchild.
    unsafe {
        libc::kill(sleep, libc::SIGKILL);
    }
    assert!(still_there, "a signal reached the reaped leader's group");
}

#[tokio::test]
async fn shutdown_of_a_stdin_reader_needs_no_signal() {
    let mut child = ManagedChild::spawn(&sh("cat >/dev/null")).expect("spawn");
    let since = std::time::Instant::now();
    child.shutdown().await;
    assert!(since.elapsed() < STOP_GRACE, "{:?}", since.elapsed());
    assert!(child.try_exited().is_some_and(|s| s.success()));
}

#[tokio::test]
async fn stderr_lines_are_announced_as_they_come() {
    let mut child =
        ManagedChild::spawn(&sh("echo one >&2; echo two >&2; read x; echo three >&2")).expect("sh");
    let tail = child.stderr_tail_handle();
    let mut rx = tail.subscribe();
    rx.wait_for(|n| *n >= 2).await.expect("two lines");
    let (lines, seen) = tail.lines_after(0);
    assert_eq!(lines, vec!["one", "two"]);
    assert_eq!(seen, 2);
    let (lines, _) = tail.lines_after(1);
    assert_eq!(lines, vec!["two"], "only what came after the first");
    let mut stdin = child.take_stdin().expect("stdin");
    tokio::io::AsyncWriteExt::write_all(&mut stdin, b"go\n")
        .await
        .expect("write");
    rx.wait_for(|n| *n >= 3).await.expect("a third line");
    assert_eq!(tail.lines_after(seen).0, vec!["three"]);
    child.kill().await;
}
