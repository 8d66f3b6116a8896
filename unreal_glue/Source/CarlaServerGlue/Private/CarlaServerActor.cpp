#include "CarlaServerActor.h"

#include "CarlaGlueUtils.h"
#include "CarlaServerGlue.h"
#include "CarlaVehicleControl.h"
#include "SceneCaptureCameraActor.h"

#include "CoreGlobals.h"
#include "Engine/World.h"
#include "EngineUtils.h"
#include "GameFramework/PlayerStart.h"
#include "HAL/PlatformTime.h"
#include "RenderingThread.h"

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
	carla_server_set_log_callback(&RouteLibraryLog, nullptr, LibraryLogLevel);
	Server = carla_make_server();
	if (Server == nullptr)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("carla_make_server failed"));
		return false;
	}
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
	carla_server_connect(Server, static_cast<uint32>(WorldPort), static_cast<uint32>(TimeOutMs));
	// Like the 0.8.4 game mode: wait for the first client's settings here.
	carla_request_new_episode Request = {};
	const int32 Result = carla_read_request_new_episode(Server, &Request, static_cast<uint32>(TimeOutMs));
	if (Result == CarlaGlue::Success)
	{
		bEpisodeRunning = StartEpisode();
	}
	else
	{
		UE_LOG(LogCarlaServerGlue, Warning, TEXT("no episode request on port %d yet (%d); polling every tick"), WorldPort, Result);
	}
}

void ACarlaServerActor::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (Server != nullptr)
	{
		FlushRenderingCommands(); // no camera read-back may use the server after this
		carla_free_server(Server);
		Server = nullptr;
	}
	carla_server_set_log_callback(nullptr, nullptr, 2);
	Super::EndPlay(EndPlayReason);
}

bool ACarlaServerActor::StartEpisode()
{
	TArray<AActor*> Starts;
	TArray<carla_transform> Spots;
	for (TActorIterator<APlayerStart> It(GetWorld()); It; ++It)
	{
		Starts.Add(*It);
		Spots.Add(CarlaGlue::ToLegacyTransform(It->GetActorTransform()));
	}
	if (Spots.Num() == 0 && Player != nullptr)
	{
		Spots.Add(CarlaGlue::ToLegacyTransform(Player->GetActorTransform()));
	}
	// The 0.8 sensors: cameras mirrored to a legacy id.
	TArray<carla_sensor_definition> Sensors;
	CarlaGlue::FUtf8Strings Names;
	for (TActorIterator<ASceneCaptureCameraActor> It(GetWorld()); It; ++It)
	{
		if (It->LegacySensorId != 0)
		{
			Names.Add(It->GetName());
			Sensors.Add({static_cast<uint32>(It->LegacySensorId), CARLA_SERVER_CAMERA, nullptr});
		}
	}
	const TArray<const char*>& SensorNames = Names.Pointers();
	for (int32 Index = 0; Index < Sensors.Num(); ++Index)
	{
		Sensors[Index].name = SensorNames[Index];
	}
	CarlaGlue::FUtf8Strings MapName;
	MapName.Add(GetWorld()->GetMapName());

	carla_scene_description Scene = {};
	Scene.map_name = MapName.Pointers()[0];
	Scene.player_start_spots = Spots.GetData();
	Scene.number_of_player_start_spots = static_cast<uint32>(Spots.Num());
	Scene.sensors = Sensors.GetData();
	Scene.number_of_sensors = static_cast<uint32>(Sensors.Num());
	const uint32 TimeOut = static_cast<uint32>(TimeOutMs);
	carla_episode_start Start = {};
	if (carla_write_scene_description(Server, &Scene, TimeOut) != CarlaGlue::Success ||
		carla_read_episode_start(Server, &Start, TimeOut) != CarlaGlue::Success)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("episode handshake failed"));
		return false;
	}
	if (Player != nullptr && Starts.IsValidIndex(static_cast<int32>(Start.player_start_spot_index)))
	{
		Player->SetActorTransform(Starts[static_cast<int32>(Start.player_start_spot_index)]->GetActorTransform());
	}
	const carla_episode_ready Ready = {true};
	return carla_write_episode_ready(Server, &Ready, TimeOut) == CarlaGlue::Success;
}

void ACarlaServerActor::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	if (Server == nullptr)
	{
		return;
	}
	// The 0.8.4 order: request (t = 0) → flush → measurements → control.
	carla_request_new_episode Request = {};
	const int32 Result = carla_read_request_new_episode(Server, &Request, 0);
	if (Result == CarlaGlue::Success)
	{
		bEpisodeRunning = StartEpisode(); // 0.8.4 reloaded the level here
		return;
	}
	if (Result != CarlaGlue::TryAgain)
	{
		UE_LOG(LogCarlaServerGlue, Warning, TEXT("world client gone (%d); waiting for the next"), Result);
		bEpisodeRunning = false;
		return;
	}
	if (!bEpisodeRunning)
	{
		return;
	}
	if (bSynchronousMode)
	{
		FlushRenderingCommands(); // this frame's camera images are committed
	}
	WriteMeasurements(DeltaSeconds);
	carla_control Control = {};
	const int32 ControlResult = carla_read_control(Server, &Control, bSynchronousMode ? static_cast<uint32>(TimeOutMs) : 0u);
	if (ControlResult == CarlaGlue::Success || ControlResult == CarlaGlue::TryAgain)
	{
		ApplyControl(ControlResult == CarlaGlue::Success ? Control : carla_control{});
	}
}

void ACarlaServerActor::WriteMeasurements(float DeltaSeconds)
{
	carla_measurements Measurements = {};
	Measurements.frame_number = static_cast<uint32>(GFrameCounter);
	Measurements.platform_timestamp = static_cast<uint32>(FPlatformTime::Seconds() * 1000.0);
	Measurements.game_timestamp = static_cast<uint32>(GetWorld()->GetTimeSeconds() * 1000.0 + 0.5);
	if (Player != nullptr)
	{
		carla_player_measurements& Out = Measurements.player_measurements;
		const FTransform Transform = Player->GetActorTransform();
		FVector Origin;
		FVector Extent;
		Player->GetActorBounds(true, Origin, Extent);
		const FVector Velocity = Player->GetVelocity();
		Out.transform = CarlaGlue::ToLegacyTransform(Transform);
		Out.bounding_box.transform = CarlaGlue::ToLegacyTransform(FTransform(Transform.InverseTransformPosition(Origin)));
		Out.bounding_box.extent = CarlaGlue::ToMeters(Extent);
		Out.forward_speed = static_cast<float>(FVector::DotProduct(Velocity, Player->GetActorForwardVector()) * 0.01);
		if (DeltaSeconds > 0.0f)
		{
			Out.acceleration = CarlaGlue::ToMeters((Velocity - LastVelocity) / DeltaSeconds);
		}
		LastVelocity = Velocity;
	}
	carla_write_measurements(Server, &Measurements);
}

void ACarlaServerActor::ApplyControl(const carla_control& Control)
{
	if (ICarlaVehicleControl* Target = Cast<ICarlaVehicleControl>(Player))
	{
		Target->ApplyCarlaControl(Control.steer, Control.throttle, Control.brake, Control.hand_brake, Control.reverse);
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
	if (bSynchronousMode)
	{
		carla_sensor_set_synchronous(Server, SensorId, static_cast<uint32>(TimeOutMs));
	}
	return SensorId;
}

void ACarlaServerActor::DestroySensor(uint32 SensorId)
{
	if (Server != nullptr && SensorId != 0)
	{
		carla_sensor_destroy(Server, SensorId);
	}
}
