#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| carla_server::fuzzing::c_api(data));
