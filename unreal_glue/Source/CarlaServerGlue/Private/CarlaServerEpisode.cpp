// ACarlaServerActor, the 0.8.4 side: episodes driven by the client's
// CarlaSettings.ini (parsed by the library), the sensors it lists spawned on
// the player, the start spot, measurements and the client's control.
#include "CarlaServerActor.h"

#include "CarlaGlueUtils.h"
#include "CarlaSemanticTagger.h"
#include "CarlaServerGlue.h"
#include "RayCastLidar.h"
#include "SceneCaptureCameraActor.h"

#include "CoreGlobals.h"
#include "Engine/World.h"
#include "EngineUtils.h"
#include "GameFramework/PlayerStart.h"
#include "HAL/PlatformTime.h"

void ACarlaServerActor::ServeLegacy(float DeltaSeconds, bool bRpcDrivesTicks)
{
	// The 0.8.4 order: request (t = 0) → measurements → control.
	carla_request_new_episode Request = {};
	const int32 Result = carla_read_request_new_episode(Server, &Request, 0);
	if (Result == CarlaGlue::Success)
	{
		bEpisodeRunning = StartEpisode(Request); // 0.8.4 reloaded the level here
		return;
	}
	if (Result != CarlaGlue::TryAgain)
	{
		if (bEpisodeRunning)
		{
			UE_LOG(LogCarlaServerGlue, Warning, TEXT("world client gone (%d); waiting for the next"), Result);
		}
		bEpisodeRunning = false;
		DestroyEpisodeSensors();
		return;
	}
	if (!bEpisodeRunning)
	{
		return;
	}
	WriteMeasurements(DeltaSeconds);
	// Synchronous 0.8 waits for this frame's control, unless 0.9 clients'
	// ticks drive the world (then the latest control applies as it comes).
	// A new episode asked for meanwhile starts at once.
	const bool bWait = bEpisodeSynchronous && !bRpcDrivesTicks;
	const double Deadline = FPlatformTime::Seconds() + TimeOutMs * 0.001;
	carla_control Control = {};
	for (;;)
	{
		const int32 ControlResult = carla_read_control(Server, &Control, bWait ? 10u : 0u);
		if (ControlResult == CarlaGlue::TryAgain && bWait && FPlatformTime::Seconds() < Deadline)
		{
			carla_request_new_episode Next = {};
			if (carla_read_request_new_episode(Server, &Next, 0) == CarlaGlue::Success)
			{
				bEpisodeRunning = StartEpisode(Next);
				return;
			}
			continue;
		}
		if (ControlResult == CarlaGlue::Success || ControlResult == CarlaGlue::TryAgain)
		{
			if (ControlResult == CarlaGlue::TryAgain)
			{
				Control = carla_control{};
			}
			ApplyControl(Player, Control.steer, Control.throttle, Control.brake, Control.hand_brake, Control.reverse);
		}
		return;
	}
}

bool ACarlaServerActor::ApplyLegacySettings(const carla_request_new_episode& Request)
{
	CarlaSettingsPtr Parsed = nullptr;
	char Error[512] = {};
	if (carla_settings_parse_within(nullptr, ServerSettings, Request.ini_file, Request.ini_file_length, &Parsed, Error,
			static_cast<uint32>(sizeof(Error))) != CarlaGlue::Success)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("the client's settings were refused: %s"), UTF8_TO_TCHAR(Error));
		return false;
	}
	carla_settings_free(EpisodeSettings);
	EpisodeSettings = Parsed;
	bool bValue = true;
	carla_settings_synchronous_mode(EpisodeSettings, &bValue);
	bEpisodeSynchronous = bValue;
	bValue = false;
	carla_settings_send_non_player_agents(EpisodeSettings, &bValue);
	bSendAgents = bValue;
	return true;
}

void ACarlaServerActor::DestroyEpisodeSensors()
{
	for (ACarlaSensor* Sensor : EpisodeSensors)
	{
		if (IsValid(Sensor))
		{
			Sensor->Destroy();
		}
	}
	EpisodeSensors.Reset();
}

void ACarlaServerActor::SpawnEpisodeSensors()
{
	uint32 Count = 0;
	carla_settings_sensor_count(EpisodeSettings, &Count);
	// 0.8 ids: the first free ones after those of the level's own sensors.
	TArray<int32> Used;
	for (TActorIterator<ACarlaSensor> It(GetWorld()); It; ++It)
	{
		Used.Add(It->LegacySensorId);
	}
	int32 NextId = 1;
	const FTransform Base = Player != nullptr ? Player->GetActorTransform() : FTransform::Identity;
	for (uint32 Index = 0; Index < Count; ++Index)
	{
		carla_sensor_settings Settings = {};
		if (carla_settings_sensor(EpisodeSettings, Index, &Settings) != CarlaGlue::Success)
		{
			continue;
		}
		while (Used.Contains(NextId))
		{
			++NextId;
		}
		const FTransform Spawn = CarlaGlue::FromPose(Settings.position, Settings.rotation) * Base;
		ACarlaSensor* Sensor = nullptr;
		if (Settings.type == CARLA_SERVER_CAMERA)
		{
			ASceneCaptureCameraActor* Camera = GetWorld()->SpawnActorDeferred<ASceneCaptureCameraActor>(
				ASceneCaptureCameraActor::StaticClass(), Spawn, Player);
			Camera->ImageSizeX = static_cast<int32>(Settings.image_size_x);
			Camera->ImageSizeY = static_cast<int32>(Settings.image_size_y);
			Camera->FOV = Settings.fov;
			Camera->Output = Settings.post_processing == CARLA_SETTINGS_POST_PROCESSING_DEPTH ? ECarlaCameraOutput::Depth
				: Settings.post_processing == CARLA_SETTINGS_POST_PROCESSING_SEMANTIC_SEGMENTATION ? ECarlaCameraOutput::SemanticSegmentation
				: ECarlaCameraOutput::SceneFinal;
			Sensor = Camera;
		}
		else if (Settings.type == CARLA_SERVER_LIDAR_RAY_CAST)
		{
			ARayCastLidar* Lidar = GetWorld()->SpawnActorDeferred<ARayCastLidar>(ARayCastLidar::StaticClass(), Spawn, Player);
			Lidar->Channels = static_cast<int32>(Settings.channels);
			Lidar->Range = Settings.range;
			Lidar->PointsPerSecond = static_cast<int32>(Settings.points_per_second);
			Lidar->RotationFrequency = Settings.rotation_frequency;
			Lidar->UpperFov = Settings.upper_fov_limit;
			Lidar->LowerFov = Settings.lower_fov_limit;
			Sensor = Lidar;
		}
		if (Sensor == nullptr)
		{
			continue;
		}
		Sensor->ServerActor = this;
		Sensor->LegacySensorId = NextId++;
		Sensor->LegacyName = UTF8_TO_TCHAR(Settings.name);
		if (Player != nullptr)
		{
			Sensor->AttachToActor(Player, FAttachmentTransformRules::KeepWorldTransform);
		}
		Sensor->FinishSpawning(Spawn);
		EpisodeSensors.Add(Sensor);
	}
}

bool ACarlaServerActor::StartEpisode(const carla_request_new_episode& Request)
{
	if (!ApplyLegacySettings(Request))
	{
		return false;
	}
	DestroyEpisodeSensors();
	SpawnEpisodeSensors();
	// A 0.8 episode is a new 0.9 episode: clients' actors are gone.
	ResetKnown(true);
	PendingTicks.Reset();
	if (BoundRpcPort != 0)
	{
		carla_rpc_new_episode(Server, nullptr);
	}
	RegisterLevelActors();

	TArray<AActor*> Starts;
	TArray<carla_transform> Spots;
	for (TActorIterator<APlayerStart> It(GetWorld()); It; ++It)
	{
		Starts.Add(*It);
		Spots.Add(CarlaGlue::ToLegacyTransform(It->GetActorTransform()));
	}
	if (Spots.Num() == 0 && Player != nullptr)
	{
		Starts.Add(Player);
		Spots.Add(CarlaGlue::ToLegacyTransform(Player->GetActorTransform()));
	}
	// The 0.8 sensors: the level's and the settings', each announced once.
	TArray<carla_sensor_definition> Sensors;
	CarlaGlue::FUtf8Strings Names;
	for (TActorIterator<ACarlaSensor> It(GetWorld()); It; ++It)
	{
		if (It->LegacySensorId != 0 && It->GetSensorId() != 0 && It->GetLegacyType() != 0)
		{
			Names.Add(It->GetLegacyName());
			Sensors.Add({static_cast<uint32>(It->LegacySensorId), It->GetLegacyType(), nullptr});
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
	int32 SpotIndex = static_cast<int32>(Start.player_start_spot_index);
	if (!Starts.IsValidIndex(SpotIndex))
	{
		// As 0.8.4: an index out of range starts at the first spot.
		UE_LOG(LogCarlaServerGlue, Warning, TEXT("start spot %d of %d does not exist; using spot 0"), SpotIndex, Starts.Num());
		SpotIndex = 0;
	}
	if (Player != nullptr && Starts.IsValidIndex(SpotIndex))
	{
		// A new episode starts at rest: ResetPhysics drops the car's speed.
		Player->SetActorTransform(Starts[SpotIndex]->GetActorTransform(), false, nullptr, ETeleportType::ResetPhysics);
		ApplyControl(Player, 0.0f, 0.0f, 0.0f, false, false);
	}
	LastVelocity = FVector::ZeroVector;
	CollisionVehicles = CollisionPedestrians = CollisionOther = 0.0f;
	const carla_episode_ready Ready = {true};
	return carla_write_episode_ready(Server, &Ready, TimeOut) == CarlaGlue::Success;
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
		const FBox Local = Player->CalculateComponentsBoundingBoxInLocalSpace(false);
		const FVector Velocity = Player->GetVelocity();
		Out.transform = CarlaGlue::ToLegacyTransform(Transform);
		Out.bounding_box.transform = CarlaGlue::ToLegacyTransform(FTransform(Local.GetCenter()));
		Out.bounding_box.extent = CarlaGlue::ToMeters(Local.GetExtent());
		Out.forward_speed = static_cast<float>(FVector::DotProduct(Velocity, Player->GetActorForwardVector()) * 0.01);
		if (DeltaSeconds > 0.0f)
		{
			Out.acceleration = CarlaGlue::ToMeters((Velocity - LastVelocity) / DeltaSeconds);
		}
		LastVelocity = Velocity;
		// Impulses accumulate in kg·cm/s; 0.8.4's encoder sent kg·m/s.
		Out.collision_vehicles = CollisionVehicles * 0.01f;
		Out.collision_pedestrians = CollisionPedestrians * 0.01f;
		Out.collision_other = CollisionOther * 0.01f;
	}
	Agents.Reset();
	for (const FKnownActor& Entry : Known)
	{
		const AActor* Actor = Entry.Actor.Get(); // null once destroyed
		if (!bSendAgents || Entry.bSpawnedByClient || Actor == nullptr || Actor == Player)
		{
			continue;
		}
		const uint32 Type = Entry.Kind == CARLA_ACTOR_VEHICLE ? CARLA_SERVER_AGENT_VEHICLE
			: Entry.Kind == CARLA_ACTOR_WALKER               ? CARLA_SERVER_AGENT_PEDESTRIAN
															 : CARLA_SERVER_AGENT_UNKNOWN;
		if (Type == CARLA_SERVER_AGENT_UNKNOWN)
		{
			continue;
		}
		const FTransform Transform = Actor->GetActorTransform();
		const FBox Local = Actor->CalculateComponentsBoundingBoxInLocalSpace(false);
		carla_agent Agent = {};
		Agent.id = Entry.Id;
		Agent.type = Type;
		Agent.transform = CarlaGlue::ToLegacyTransform(Transform);
		Agent.bounding_box.transform = CarlaGlue::ToLegacyTransform(FTransform(Local.GetCenter()));
		Agent.bounding_box.extent = CarlaGlue::ToMeters(Local.GetExtent());
		Agent.forward_speed = static_cast<float>(FVector::DotProduct(Entry.Actor->GetVelocity(), Transform.Rotator().Vector()) * 0.01);
		Agents.Add(Agent);
	}
	Measurements.non_player_agents = Agents.GetData();
	Measurements.number_of_non_player_agents = static_cast<uint32>(Agents.Num());
	carla_write_measurements(Server, &Measurements);
}
