//! The plugin's files, read as a reviewer would: the module name, the
//! library shipped, and the rules the glue keeps (Unreal's, and the
//! engine calls that bit us).

use super::sim::{files_with_ext, glue_module, CRATE};
use std::fs;
use std::path::Path;

/// The plugin's files agree on the module name and ship the library; the
/// glue keeps to Unreal's rules (no RTTI, no exceptions) and leaves the
/// data formats to the library.
#[test]
fn plugin_files_are_consistent_and_the_glue_stays_thin() {
    let root = Path::new(CRATE).join("unreal_glue");
    let read = |p: &Path| fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let uplugin = read(&root.join("CarlaServerGlue.uplugin"));
    assert!(
        uplugin.contains("\"Name\": \"CarlaServerGlue\""),
        "{uplugin}"
    );
    let build = read(&glue_module().join("CarlaServerGlue.Build.cs"));
    for needle in [
        "public class CarlaServerGlue : ModuleRules",
        "libcarla_server.so",
        "carla_server.dll.lib",
        "PublicDelayLoadDLLs.Add(\"carla_server.dll\")",
        "RuntimeDependencies.Add(\"$(PluginDir)/Binaries/ThirdParty/carla_server/Linux/libcarla_server.so\")",
        "RuntimeDependencies.Add(\"$(PluginDir)/Binaries/ThirdParty/carla_server/Win64/carla_server.dll\")",
    ] {
        assert!(build.contains(needle), "Build.cs lacks {needle}");
    }
    let module = read(&glue_module().join("Private/CarlaServerGlue.cpp"));
    assert!(module.contains("IMPLEMENT_MODULE(FCarlaServerGlueModule, CarlaServerGlue)"));
    for dir in ["Public", "Private"] {
        for ext in ["h", "cpp"] {
            for file in files_with_ext(&glue_module().join(dir), ext) {
                let text = read(&file);
                for banned in [
                    // Unreal builds without RTTI and exceptions.
                    "dynamic_cast",
                    "typeid",
                    "throw ",
                    "try\n",
                    // Payloads are serialized by the library, not the glue.
                    "carla_write_sensor_data",
                    "carla_sensor_send_raw",
                    "carla_sensor_send_image",
                    // Data symbols: a delay-loaded DLL cannot export them
                    // (MSVC LNK1194); the glue uses CarlaGlue::Success etc.
                    "CARLA_SERVER_SUCCESS",
                    "CARLA_SERVER_TRY_AGAIN",
                    "CARLA_SERVER_TIMED_OUT",
                    "CARLA_SERVER_OPERATION_ABORTED",
                    // Vulkan (Linux) forbids read locks; ReadSurfaceData
                    // flushes the RHI thread and the GPU: cameras use the
                    // asynchronous FRHIGPUTextureReadback. Sends never
                    // wait on a subscriber.
                    "RLM_ReadOnly",
                    "LockTexture2D",
                    "ReadSurfaceData",
                    "carla_sensor_set_synchronous",
                ] {
                    assert!(
                        !text.contains(banned),
                        "{}: uses {banned:?}",
                        file.display()
                    );
                }
            }
        }
    }
}

/// The platforms a module's list under `key` names in the `.uplugin`
/// (`None` when the key is absent).
fn platforms(uplugin: &str, key: &str) -> Option<Vec<String>> {
    let at = uplugin.find(&format!("\"{key}\""))?;
    let rest = &uplugin[at..];
    let list = &rest[rest.find('[')? + 1..rest.find(']')?];
    Some(
        list.split(',')
            .map(|p| p.trim().trim_matches('"').to_owned())
            .filter(|p| !p.is_empty())
            .collect(),
    )
}

/// Each engine reads its own key for the platforms a module builds on:
/// UE 4.26/4.27 `WhitelistPlatforms`, UE 5 `PlatformAllowList`. Without
/// its key an engine builds the module everywhere, and it fails to link
/// where the package has no library. Both must name exactly the platforms
/// the package ships a library for.
#[test]
fn every_engine_version_reads_the_platforms_the_library_ships_for() {
    let uplugin = fs::read_to_string(Path::new(CRATE).join("unreal_glue/CarlaServerGlue.uplugin"))
        .expect("the .uplugin");
    let shipped = vec!["Linux".to_owned(), "Win64".to_owned()];
    for (engine, key) in [
        ("UE 4.26", "WhitelistPlatforms"),
        ("UE 4.27", "WhitelistPlatforms"),
        ("UE 5", "PlatformAllowList"),
    ] {
        assert_eq!(
            platforms(&uplugin, key).as_ref(),
            Some(&shipped),
            "{engine} reads {key:?}"
        );
    }
}
