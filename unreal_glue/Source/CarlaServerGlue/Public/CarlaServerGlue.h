// The CarlaServerGlue module: loads the carla_server library at start-up and
// frees it at shut-down. Everything else lives in the actors.
#pragma once

#include "CoreMinimal.h"
#include "Modules/ModuleManager.h"

DECLARE_LOG_CATEGORY_EXTERN(LogCarlaServerGlue, Log, All);

class CARLASERVERGLUE_API FCarlaServerGlueModule : public IModuleInterface
{
public:
	virtual void StartupModule() override;
	virtual void ShutdownModule() override;

	/** Whether StartupModule found and loaded the library. */
	bool IsLibraryLoaded() const { return LibraryHandle != nullptr; }

	/** The same, for the actors: no carla_* call may come before it says
	 * yes (on Win64 the DLL is delay-loaded, and a call without it crashes
	 * the engine). */
	static bool IsLibraryAvailable() { return bLibraryAvailable; }

private:
	void* LibraryHandle = nullptr;
	static bool bLibraryAvailable;
};
