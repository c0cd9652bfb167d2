#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| agent_bridge_fuzz_harness::codec::run(data));
