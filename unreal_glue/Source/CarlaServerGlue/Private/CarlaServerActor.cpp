#include "CarlaServerActor.h"

#include "CarlaGlueUtils.h"
#include "CarlaSemanticTagger.h"
#include "CarlaSensor.h"
#include "CarlaServerGlue.h"
#include "CarlaVehicleControl.h"
#include "SceneCaptureCameraActor.h"

#include "Components/PrimitiveComponent.h"
#include "Engine/World.h"
#include "HAL/IConsoleManager.h"
#include "EngineUtils.h"
#include "RenderingThread.h"

#include <cstring>

namespace
{
	/** The library's log lines (any library thread) into UE_LOG. */
	void RouteLibraryLog(int32_t Level, const char* Message, void* /*UserData*/)
	{
		switch (Level)
		{
		case 1: UE_LOG(LogCarlaServerGlue, Error, TEXT("carla_server: %s"), UTF8_TO_TCHAR(Message)); break;
		case 2: UE_LOG(LogCarlaServerGlue, Warning, TEXT("carla_server: %s"), UTF8_TO_TCHAR(Message)); break;
		case 3: UE_LOG(LogCarlaServerGlue, Log, TEXT("carla_server: %s"), UTF8_TO_TCHAR(Message)); break;
		default: UE_LOG(LogCarlaServerGlue, Verbose, TEXT("carla_server: %s"), UTF8_TO_TCHAR(Message)); break;
		}
	}
}

ACarlaServerActor::ACarlaServerActor()
{
	PrimaryActorTick.bCanEverTick = true;
	// After the sensors (post-physics): the synchronous flush then catches
	// this frame's camera read-backs, as in the 0.8.4 plugin.
	PrimaryActorTick.TickGroup = TG_PostUpdateWork;
}

ACarlaServerActor* ACarlaServerActor::Find(UWorld* World)
{
	TActorIterator<ACarlaServerActor> It(World);
	return It ? *It : nullptr;
}

bool ACarlaServerActor::EnsureServer()
{
	if (Server != nullptr)
	{
		return true;
	}
	// Before the first carla_* call: without the library (Win64: the
	// delay-loaded DLL) that call would crash the engine.
	if (!FCarlaServerGlueModule::IsLibraryAvailable())
	{
		if (!bLibraryMissingLogged)
		{
			UE_LOG(LogCarlaServerGlue, Error, TEXT("%s: the carla_server library is not loaded (see the module's log line); no server"), *GetName());
			bLibraryMissingLogged = true;
		}
		return false;
	}
	bLibraryUsed = true;
	carla_server_set_log_callback(&RouteLibraryLog, nullptr, LibraryLogLevel);
	Server = carla_make_server();
	if (Server == nullptr)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("carla_make_server failed"));
		return false;
	}
	// The server's own settings, over which each client's ini applies (as
	// 0.8.4 applied the server's CarlaSettings.ini, then the client's).
	const char* Defaults = bSynchronousMode ? "[CARLA/Server]\nSynchronousMode=true\n" : "[CARLA/Server]\nSynchronousMode=false\n";
	carla_settings_parse(Defaults, static_cast<uint32>(std::strlen(Defaults)), &ServerSettings, nullptr, 0);
	uint32 Bound = 0;
	const int32 Port = StreamingPort < 0 ? WorldPort + 3 : StreamingPort;
	if (carla_server_listen_streaming(Server, static_cast<uint32>(Port), &Bound) == CarlaGlue::Success)
	{
		BoundStreamingPort = static_cast<int32>(Bound);
	}
	return true;
}

void ACarlaServerActor::BeginPlay()
{
	Super::BeginPlay();
	if (!EnsureServer()) // or a sensor that began play first made it
	{
		return;
	}
	RequireCustomDepthStencil();
	if (Player != nullptr)
	{
		// Hit events need the body's "Simulation Generates Hit Events".
		if (UPrimitiveComponent* Body = Cast<UPrimitiveComponent>(Player->GetRootComponent()))
		{
			Body->SetNotifyRigidBodyCollision(true);
		}
		Player->OnActorHit.AddDynamic(this, &ACarlaServerActor::OnPlayerHit);
	}
	const int32 Listening = carla_server_connect(Server, static_cast<uint32>(WorldPort), static_cast<uint32>(TimeOutMs));
	if (Listening != CarlaGlue::Success)
	{
		// Most often a port taken by another program (the 0.8 protocol
		// uses WorldPort, +1 and +2): 0.8 clients cannot connect.
		UE_LOG(LogCarlaServerGlue, Error, TEXT("cannot listen for 0.8 clients on ports %d to %d (%d): see the library's log line above"),
			WorldPort, WorldPort + 2, Listening);
	}
	ListenRpc();
	RegisterLevelActors();
	if (!bWaitForLegacyClient)
	{
		return;
	}
	// Like the 0.8.4 game mode: wait for the first client's settings here.
	carla_request_new_episode Request = {};
	const int32 Result = carla_read_request_new_episode(Server, &Request, static_cast<uint32>(TimeOutMs));
	if (Result == CarlaGlue::Success)
	{
		bEpisodeRunning = StartEpisode(Request);
	}
	else
	{
		UE_LOG(LogCarlaServerGlue, Warning, TEXT("no episode request on port %d yet (%d); polling every tick"), WorldPort, Result);
	}
}

void ACarlaServerActor::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (IsValid(Player))
	{
		Player->OnActorHit.RemoveDynamic(this, &ACarlaServerActor::OnPlayerHit);
	}
	if (ActorSpawnedHandle.IsValid())
	{
		GetWorld()->RemoveOnActorSpawnedHandler(ActorSpawnedHandle);
		ActorSpawnedHandle.Reset();
	}
	ResetKnown(false);
	if (Server != nullptr)
	{
		FlushRenderingCommands(); // no camera read-back may use the server after this
		carla_free_server(Server);
		Server = nullptr;
	}
	if (bLibraryUsed)
	{
		carla_settings_free(EpisodeSettings);
		carla_settings_free(ServerSettings);
		carla_server_set_log_callback(nullptr, nullptr, 2);
	}
	EpisodeSettings = ServerSettings = nullptr;
	bEpisodeRunning = false;
	EpisodeSensors.Reset();
	Super::EndPlay(EndPlayReason);
}

void ACarlaServerActor::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	if (Server == nullptr)
	{
		return;
	}
	const bool bRpcDrivesTicks = IsRpcSynchronous();
	if ((bEpisodeRunning && bEpisodeSynchronous) || bRpcDrivesTicks)
	{
		// The cameras' render commands so far have run (a fence, not a
		// full flush): this frame's images are sent.
		FRenderCommandFence Fence;
		Fence.BeginFence();
		Fence.Wait();
	}
	ServeLegacy(DeltaSeconds, bRpcDrivesTicks);
	ServeRpcAfterFrame(DeltaSeconds);
}

bool ACarlaServerActor::IsFrameSynchronous() const
{
	return (bEpisodeRunning && bEpisodeSynchronous) || IsRpcSynchronous();
}

uint32 ACarlaServerActor::GetActorId(const AActor* Actor) const
{
	const uint32* Id = Actor != nullptr ? IdByActor.Find(Actor) : nullptr;
	return Id != nullptr ? *Id : 0;
}

ACarlaServerActor::FKnownActor* ACarlaServerActor::FindKnown(const AActor* Actor)
{
	for (FKnownActor& Entry : Known)
	{
		if (Actor != nullptr && Entry.Actor.Get(true) == Actor)
		{
			return &Entry;
		}
	}
	return nullptr;
}

void ACarlaServerActor::RequireCustomDepthStencil()
{
	// The semantic camera reads the custom-depth stencil, which the
	// renderer writes only with r.CustomDepth=3 (Unreal's default is 1).
	IConsoleVariable* CustomDepth = IConsoleManager::Get().FindConsoleVariable(TEXT("r.CustomDepth"));
	if (SemanticSegmentationMaterial == nullptr || CustomDepth == nullptr || CustomDepth->GetInt() == 3)
	{
		return;
	}
	UE_LOG(LogCarlaServerGlue, Warning,
		TEXT("r.CustomDepth was %d: set to 3 (the semantic camera reads the custom-depth stencil); put r.CustomDepth=3 under [/Script/Engine.RendererSettings] in DefaultEngine.ini"),
		CustomDepth->GetInt());
	CustomDepth->Set(3, ECVF_SetByCode);
}

UMaterialInterface* ACarlaServerActor::GetPostProcessMaterial(ECarlaCameraOutput Output) const
{
	switch (Output)
	{
	case ECarlaCameraOutput::Depth: return DepthMaterial;
	case ECarlaCameraOutput::SemanticSegmentation: return SemanticSegmentationMaterial;
	default: return nullptr;
	}
}

void ACarlaServerActor::ApplyControl(AActor* Vehicle, float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse)
{
	if (Vehicle == nullptr || !Vehicle->Implements<UCarlaVehicleControl>())
	{
		return;
	}
	ICarlaVehicleControl::Execute_ApplyCarlaControl(Vehicle, Steer, Throttle, Brake, bHandBrake, bReverse);
	if (FKnownActor* Entry = FindKnown(Vehicle))
	{
		Entry->Control.steer = Steer;
		Entry->Control.throttle = Throttle;
		Entry->Control.brake = Brake;
		Entry->Control.hand_brake = bHandBrake;
		Entry->Control.reverse = bReverse;
	}
}

void ACarlaServerActor::OnPlayerHit(AActor* /*SelfActor*/, AActor* OtherActor, FVector NormalImpulse, const FHitResult& /*Hit*/)
{
	// As 0.8.4 (CarlaVehicleController::OnCollisionEvent, then
	// ACarlaPlayerState::RegisterCollision): only while the player moves
	// faster than 1 km/h (cm/s × 0.036), accumulated per kind of other actor
	// in Unreal's units (kg·cm/s); the measurements send kg·m/s.
	if (Player == nullptr)
	{
		return;
	}
	const double KilometresPerHour = FVector::DotProduct(Player->GetVelocity(), Player->GetActorForwardVector()) * 0.036;
	if (KilometresPerHour >= -1.0 && KilometresPerHour <= 1.0)
	{
		return;
	}
	const float Impulse = static_cast<float>(NormalImpulse.Size());
	if (CarlaGlue::IsVehicle(OtherActor))
	{
		CollisionVehicles += Impulse;
	}
	else if (CarlaGlue::IsWalker(OtherActor))
	{
		CollisionPedestrians += Impulse;
	}
	else
	{
		CollisionOther += Impulse;
	}
}

uint32 ACarlaServerActor::CreateSensor(const char* Blueprint, const TMap<FString, FString>& Attributes)
{
	// Level actors begin play in no guaranteed order: a sensor may come first.
	if (!EnsureServer())
	{
		return 0;
	}
	CarlaGlue::FUtf8Strings Keys;
	CarlaGlue::FUtf8Strings Values;
	for (const TPair<FString, FString>& Attribute : Attributes)
	{
		Keys.Add(Attribute.Key);
		Values.Add(Attribute.Value);
	}
	uint32 SensorId = 0;
	char Error[256] = {};
	if (carla_sensor_create(Server, Blueprint, Keys.Pointers().GetData(), Values.Pointers().GetData(),
			static_cast<uint32>(Keys.Num()), &SensorId, Error, static_cast<uint32>(sizeof(Error))) != CarlaGlue::Success)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("cannot create %s: %s"), UTF8_TO_TCHAR(Blueprint), UTF8_TO_TCHAR(Error));
		return 0;
	}
	// Every subscriber gets every message in order; a send never waits for
	// one (the render thread commits images), a stalled one loses messages.
	carla_sensor_set_queued(Server, SensorId, static_cast<uint32>(StreamQueueDepth));
	return SensorId;
}

void ACarlaServerActor::DestroySensor(uint32 SensorId)
{
	if (Server != nullptr && SensorId != 0)
	{
		carla_sensor_destroy(Server, SensorId);
	}
}
