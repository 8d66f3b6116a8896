// The stand-in's module and plugin managers (see README.md).
#include "StandinModules.h"

#include <cstdlib>

FModuleManager& FModuleManager::Get()
{
	static FModuleManager Instance;
	return Instance;
}

void FModuleManager::StandinRegister(const char* Name, IModuleInterface* (*Factory)())
{
	Entries.push_back(FEntry{FString(Name), Factory, nullptr});
}

IModuleInterface* FModuleManager::Find(const FName InModuleName) const
{
	for (const FEntry& Entry : Entries)
	{
		if (FName(Entry.Name) == InModuleName)
			return Entry.Module.get();
	}
	return nullptr;
}

IModuleInterface* FModuleManager::LoadModule(const FName InModuleName)
{
	for (FEntry& Entry : Entries)
	{
		if (FName(Entry.Name) != InModuleName)
			continue;
		if (!Entry.Module)
		{
			Entry.Module.reset(Entry.Factory());
			Entry.Module->StartupModule();
		}
		return Entry.Module.get();
	}
	return nullptr;
}

bool FModuleManager::UnloadModule(const FName InModuleName, bool /*bIsShutdown*/)
{
	for (FEntry& Entry : Entries)
	{
		if (FName(Entry.Name) == InModuleName && Entry.Module)
		{
			Entry.Module->ShutdownModule();
			Entry.Module.reset();
			return true;
		}
	}
	return false;
}

bool FModuleManager::IsModuleLoaded(const FName InModuleName) const
{
	return Find(InModuleName) != nullptr;
}

namespace
{
	class FStandinPlugin : public IPlugin
	{
	public:
		explicit FStandinPlugin(const FString& InName) : Name(InName) {}
		FString GetName() const override { return Name; }
		FString GetBaseDir() const override
		{
			const char* Dir = std::getenv("STANDIN_PLUGIN_DIR");
			return FString::StandinFromUtf8(Dir != nullptr ? Dir : ".");
		}

	private:
		FString Name;
	};

	class FStandinPluginManager : public IPluginManager
	{
	public:
		TSharedPtr<IPlugin> FindPlugin(const FString& Name) override { return std::make_shared<FStandinPlugin>(Name); }
	};
}

IPluginManager& IPluginManager::Get()
{
	static FStandinPluginManager Instance;
	return Instance;
}
