#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| carla_server::fuzzing::rpc_stream(data));
