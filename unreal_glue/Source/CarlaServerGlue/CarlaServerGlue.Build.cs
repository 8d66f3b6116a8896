// Build rules of the CarlaServerGlue module: the carla_server C API header
// and the prebuilt library (libcarla_server.so / carla_server.dll).
//
// Where the files are looked for (see unreal_glue/README.md):
//   header   <Plugin>/Source/ThirdParty/carla_server/include/carla/carla_server.h
//            (a copy of the crate's include/), or, when the plugin is used in
//            place inside the carla_server repository, <repo>/include.
//   Linux    <Plugin>/Binaries/ThirdParty/carla_server/Linux/libcarla_server.so
//   Windows  <Plugin>/Binaries/ThirdParty/carla_server/Win64/carla_server.dll
//            <Plugin>/Source/ThirdParty/carla_server/lib/Win64/carla_server.dll.lib

using System.IO;
using UnrealBuildTool;

public class CarlaServerGlue : ModuleRules
{
	public CarlaServerGlue(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = PCHUsageMode.UseExplicitOrSharedPCHs;

		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine" });
		// Projects: IPluginManager (library path); RenderCore/RHI: the camera's
		// render-thread read-back.
		PrivateDependencyModuleNames.AddRange(new string[] { "Projects", "RenderCore", "RHI" });

		string ThirdPartyDir = Path.Combine(PluginDirectory, "Source", "ThirdParty", "carla_server");
		string IncludeDir = Path.Combine(ThirdPartyDir, "include");
		if (!File.Exists(Path.Combine(IncludeDir, "carla", "carla_server.h")))
		{
			// In place inside the repository: unreal_glue/ sits next to include/.
			IncludeDir = Path.GetFullPath(Path.Combine(PluginDirectory, "..", "include"));
		}
		PublicIncludePaths.Add(IncludeDir);

		string BinariesDir = Path.Combine(PluginDirectory, "Binaries", "ThirdParty", "carla_server");
		if (Target.Platform == UnrealTargetPlatform.Linux)
		{
			string SharedObject = Path.Combine(BinariesDir, "Linux", "libcarla_server.so");
			PublicAdditionalLibraries.Add(SharedObject);
			// Staged next to the plugin's binaries in a packaged game.
			RuntimeDependencies.Add("$(PluginDir)/Binaries/ThirdParty/carla_server/Linux/libcarla_server.so");
		}
		else if (Target.Platform == UnrealTargetPlatform.Win64)
		{
			PublicAdditionalLibraries.Add(Path.Combine(ThirdPartyDir, "lib", "Win64", "carla_server.dll.lib"));
			// Loaded by FCarlaServerGlueModule::StartupModule from the plugin's
			// Binaries/ThirdParty directory before the first call.
			PublicDelayLoadDLLs.Add("carla_server.dll");
			RuntimeDependencies.Add("$(PluginDir)/Binaries/ThirdParty/carla_server/Win64/carla_server.dll");
		}
	}
}
