#include "CarlaServerGlue.h"

#include "HAL/PlatformProcess.h"
#include "Interfaces/IPluginManager.h"
#include "Misc/Paths.h"

DEFINE_LOG_CATEGORY(LogCarlaServerGlue);

bool FCarlaServerGlueModule::bLibraryAvailable = false;

void FCarlaServerGlueModule::StartupModule()
{
	// Windows delay-loads carla_server.dll: it must be loaded from the
	// plugin's directory before the first call. On Linux the dynamic linker
	// already found it through the module's RPATH; this only checks it is there.
	const FString BaseDir = IPluginManager::Get().FindPlugin(TEXT("CarlaServerGlue"))->GetBaseDir();
#if PLATFORM_WINDOWS
	const FString LibraryPath = FPaths::Combine(*BaseDir, TEXT("Binaries/ThirdParty/carla_server/Win64/carla_server.dll"));
#else
	const FString LibraryPath = FPaths::Combine(*BaseDir, TEXT("Binaries/ThirdParty/carla_server/Linux/libcarla_server.so"));
#endif
	LibraryHandle = FPlatformProcess::GetDllHandle(*LibraryPath);
	if (LibraryHandle == nullptr)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("cannot load %s: the CARLA server actors stay idle"), *LibraryPath);
		return;
	}
	bLibraryAvailable = true;
	UE_LOG(LogCarlaServerGlue, Log, TEXT("loaded %s"), *LibraryPath);
}

void FCarlaServerGlueModule::ShutdownModule()
{
	bLibraryAvailable = false;
	if (LibraryHandle != nullptr)
	{
		FPlatformProcess::FreeDllHandle(LibraryHandle);
		LibraryHandle = nullptr;
	}
}

IMPLEMENT_MODULE(FCarlaServerGlueModule, CarlaServerGlue)
