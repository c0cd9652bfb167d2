//! Unit tests of the prestarted pool with a fake spare: a counter of starts and a flag per
//! spare that tells whether it is still "running" (dropping or stopping it clears the flag).

use super::*;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

#[derive(Debug)]
struct Fake {
    pid: u32,
    running: Arc<AtomicBool>,
    dead: Arc<AtomicBool>,
}

impl Prestarted for Fake {
    fn pid(&self) -> Option<u32> {
        Some(self.pid)
    }

    fn is_dead(&self) -> bool {
        self.dead.load(Ordering::SeqCst)
    }

    fn shutdown(self) -> BoxFuture<'static, ()> {
        Box::pin(async move { drop(self) })
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.running.store(false, Ordering::SeqCst);
    }
}

/// A fake's flags: running, dead.
type Flags = (Arc<AtomicBool>, Arc<AtomicBool>);

/// Starts fakes with pids 1, 2, ...; keeps each one's flags.
#[derive(Default, Clone)]
struct Starter {
    started: Arc<AtomicU32>,
    flags: Arc<Mutex<Vec<Flags>>>,
}

impl Starter {
    fn start(&self) -> impl Future<Output = Result<Fake, String>> + Send + 'static {
        let this = self.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            let pid = this.started.fetch_add(1, Ordering::SeqCst) + 1;
            let running = Arc::new(AtomicBool::new(true));
            let dead = Arc::new(AtomicBool::new(false));
            lock(&this.flags).push((running.clone(), dead.clone()));
            Ok(Fake { pid, running, dead })
        }
    }

    fn starts(&self) -> u32 {
        self.started.load(Ordering::SeqCst)
    }

    /// Whether the fake with `pid` still runs.
    fn running(&self, pid: u32) -> bool {
        lock(&self.flags)[pid as usize - 1].0.load(Ordering::SeqCst)
    }

    fn kill(&self, pid: u32) {
        lock(&self.flags)[pid as usize - 1]
            .1
            .store(true, Ordering::SeqCst);
    }
}

fn config(provider: &str) -> PoolConfig {
    PoolConfig {
        enabled: true,
        idle: Duration::from_secs(600),
        max_spares: 1,
        provider: provider.to_string(),
        stopping: Default::default(),
    }
}

/// The registry's pids of `provider`.
fn registered(provider: &str) -> Vec<u32> {
    super::super::idle()
        .into_iter()
        .filter(|r| r.provider == provider && r.kind == "prestarted")
        .map(|r| r.pid)
        .collect()
}

async fn ready<K: SpareKeyBound>(pool: &PrestartedPool<K, Fake>, key: &K) {
    pool.wait_started(key).await;
    assert!(pool.peek(key, |_| ()).is_some(), "a spare for {key:?}");
}

#[tokio::test(start_paused = true)]
async fn one_spare_per_key_taken_once_by_its_key_and_registered_while_it_idles() {
    let starter = Starter::default();
    let pool = PrestartedPool::<&str, Fake>::new(config("pool-take"));
    pool.replenish("a", starter.start());
    pool.replenish("a", starter.start());
    ready(&pool, &"a").await;
    pool.replenish("a", starter.start());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(starter.starts(), 1, "one spare per key");
    assert_eq!(registered("pool-take"), vec![1]);

    assert!(pool.take(&"b").is_none(), "another key never matches");
    let spare = pool.take(&"a").expect("the spare");
    assert_eq!(spare.pid, 1);
    assert!(pool.take(&"a").is_none(), "taken once");
    assert!(
        registered("pool-take").is_empty(),
        "a taken spare is not idle"
    );
    assert!(starter.running(1), "a taken spare is the caller's");
    drop(spare);
    assert!(!starter.running(1));
}

#[tokio::test(start_paused = true)]
async fn beyond_the_limit_the_oldest_spare_is_stopped() {
    let starter = Starter::default();
    let pool = PrestartedPool::<u8, Fake>::new(PoolConfig {
        max_spares: 2,
        ..config("pool-max")
    });
    for key in 0..3u8 {
        pool.replenish(key, starter.start());
        ready(&pool, &key).await;
        assert_eq!(pool.len(), (key as usize + 1).min(2));
    }
    assert!(pool.take(&0).is_none(), "the oldest went");
    assert!(!starter.running(1), "and its process");
    assert!(starter.running(2) && starter.running(3));
    let mut pids = registered("pool-max");
    pids.sort();
    assert_eq!(pids, vec![2, 3]);
}

#[tokio::test(start_paused = true)]
async fn an_unused_spare_is_stopped_after_the_idle_time() {
    let starter = Starter::default();
    let pool = PrestartedPool::<&str, Fake>::new(PoolConfig {
        idle: Duration::from_secs(30),
        ..config("pool-idle")
    });
    pool.replenish("a", starter.start());
    ready(&pool, &"a").await;
    tokio::time::sleep(Duration::from_secs(29)).await;
    assert_eq!(pool.len(), 1, "kept until the idle time");
    assert!(starter.running(1));
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(pool.is_empty(), "gone after it");
    assert!(!starter.running(1), "stopped");
    assert!(registered("pool-idle").is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_dead_spare_is_never_handed_out() {
    let starter = Starter::default();
    let pool = PrestartedPool::<&str, Fake>::new(config("pool-dead"));
    pool.replenish("a", starter.start());
    ready(&pool, &"a").await;
    starter.kill(1);
    assert!(pool.peek(&"a", |_| ()).is_none());
    assert!(pool.take(&"a").is_none());
    assert!(pool.is_empty(), "dropped");
}

#[tokio::test(start_paused = true)]
async fn a_dropped_pool_kills_its_spares_and_one_still_starting() {
    let starter = Starter::default();
    let pool = PrestartedPool::<&str, Fake>::new(config("pool-drop"));
    pool.replenish("a", starter.start());
    ready(&pool, &"a").await;
    assert_eq!(registered("pool-drop"), vec![1]);
    pool.replenish("b", starter.start());
    drop(pool);
    assert!(!starter.running(1), "the ready one is killed");
    assert!(registered("pool-drop").is_empty(), "and unregistered");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(starter.starts(), 2);
    assert!(
        !starter.running(2),
        "the one starting is killed once started"
    );
}

#[tokio::test(start_paused = true)]
async fn a_take_waits_for_a_spare_still_starting_and_an_offer_is_kept_once() {
    let starter = Starter::default();
    let pool = PrestartedPool::<&str, Fake>::new(config("pool-wait"));
    pool.replenish("a", starter.start());
    let spare = pool.take_or_wait(&"a").await.expect("the spare");
    assert!(pool.take_or_wait(&"a").await.is_none(), "nothing starting");
    assert!(pool.offer("a", spare).is_none(), "kept");
    let other = starter.start().await.expect("fake");
    let back = pool.offer("a", other).expect("one per key: handed back");
    assert_eq!(back.pid, 2);
}

#[tokio::test(start_paused = true)]
async fn a_disabled_pool_starts_and_keeps_nothing() {
    let starter = Starter::default();
    let pool = PrestartedPool::<&str, Fake>::new(PoolConfig {
        enabled: false,
        ..config("pool-off")
    });
    pool.replenish("a", starter.start());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(starter.starts(), 0);
    let spare = starter.start().await.expect("fake");
    assert!(pool.offer("a", spare).is_some(), "handed back");
    assert!(pool.is_empty());
}
