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

private:
	void* LibraryHandle = nullptr;
};
