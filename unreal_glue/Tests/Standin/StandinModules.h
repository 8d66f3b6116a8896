// Stand-in for Unreal's module and plugin managers: IMPLEMENT_MODULE
// registers a factory, FModuleManager::LoadModule creates the module and
// calls StartupModule; IPluginManager reports every plugin's base directory
// as $STANDIN_PLUGIN_DIR (default ".").
#pragma once

#include "StandinCore.h"

class IModuleInterface
{
public:
	virtual ~IModuleInterface() = default;
	virtual void StartupModule() {}
	virtual void ShutdownModule() {}
};

class FModuleManager
{
public:
	static FModuleManager& Get();

	/** Creates the module (once) and calls StartupModule; nullptr if unknown. */
	IModuleInterface* LoadModule(const FName InModuleName);
	/** Calls ShutdownModule and destroys the module. */
	bool UnloadModule(const FName InModuleName, bool bIsShutdown = false);
	bool IsModuleLoaded(const FName InModuleName) const;

	template <class T>
	static T& GetModuleChecked(const FName InModuleName)
	{
		IModuleInterface* Module = Get().Find(InModuleName);
		check(Module != nullptr);
		return *static_cast<T*>(Module);
	}

	template <class T>
	static T& LoadModuleChecked(const FName InModuleName)
	{
		IModuleInterface* Module = Get().LoadModule(InModuleName);
		check(Module != nullptr);
		return *static_cast<T*>(Module);
	}

	void StandinRegister(const char* Name, IModuleInterface* (*Factory)());

private:
	IModuleInterface* Find(const FName InModuleName) const;

	struct FEntry
	{
		FString Name;
		IModuleInterface* (*Factory)();
		std::unique_ptr<IModuleInterface> Module;
	};
	std::vector<FEntry> Entries;
};

struct FStandinModuleRegistrant
{
	FStandinModuleRegistrant(const char* Name, IModuleInterface* (*Factory)())
	{
		FModuleManager::Get().StandinRegister(Name, Factory);
	}
};

#define IMPLEMENT_MODULE(ModuleClass, ModuleName)                                                    \
	static IModuleInterface* StandinCreateModule##ModuleName() { return new ModuleClass(); }         \
	static FStandinModuleRegistrant StandinModuleRegistrant##ModuleName(#ModuleName, &StandinCreateModule##ModuleName);

class IPlugin
{
public:
	virtual ~IPlugin() = default;
	virtual FString GetName() const = 0;
	virtual FString GetBaseDir() const = 0;
};

class IPluginManager
{
public:
	virtual ~IPluginManager() = default;
	static IPluginManager& Get();
	virtual TSharedPtr<IPlugin> FindPlugin(const FString& Name) = 0;
};
