// ACarlaServerActor, the 0.9.16 side: the level's vehicles and walkers made
// known to clients, the requests only the engine can carry out (spawning and
// destroying sensor actors, controls, transforms, velocities, settings,
// ticks), and the episode state after every frame.
#include "CarlaServerActor.h"

#include "CarlaGlueUtils.h"
#include "CarlaSemanticTagger.h"
#include "CarlaVehicleControl.h"
#include "CarlaServerGlue.h"
#include "RayCastLidar.h"
#include "SafeDistanceSensor.h"
#include "SceneCaptureCameraActor.h"

#include "Components/PrimitiveComponent.h"
#include "CoreGlobals.h"
#include "Engine/World.h"
#include "EngineUtils.h"
#include "HAL/PlatformTime.h"
#include "Misc/App.h"
#include "PhysicsEngine/PhysicsSettings.h"
#include "ProfilingDebugging/CpuProfilerTrace.h"

#include <cstdio>
#include <cstring>

namespace
{
	/** Ids of the level's actors start here, clear of the small ids the
	 *  library gives the actors clients spawn. */
	constexpr uint32 FirstLevelActorId = 10000;

	const char* const VehicleBlueprint = "vehicle.unreal.vehicle";
	const char* const WalkerBlueprint = "walker.pedestrian.unreal";

	bool StartsWith(const char* Text, const char* Prefix)
	{
		return Text != nullptr && std::strncmp(Text, Prefix, std::strlen(Prefix)) == 0;
	}
}

void ACarlaServerActor::ListenRpc()
{
	if (RpcPort < 0)
	{
		return;
	}
	uint32 Bound = 0;
	if (carla_rpc_listen(Server, static_cast<uint32>(RpcPort), &Bound) != CarlaGlue::Success)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("cannot listen for 0.9 clients on port %d"), RpcPort);
		return;
	}
	BoundRpcPort = static_cast<int32>(Bound);
	// Sensors clients spawn: in synchronous mode every subscriber gets every
	// message, queued; a send never waits (the render thread sends images).
	if (carla_rpc_set_stream_queue(Server, static_cast<uint32>(StreamQueueDepth)) != CarlaGlue::Success)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("StreamQueueDepth %d is not 0 to 64: synchronous 0.9 streams wait for slow subscribers"), StreamQueueDepth);
	}
	const char* RoleName = "role_name";
	const uint8 StringType = CARLA_RPC_ATTRIBUTE_STRING;
	const char* Autopilot = "autopilot";
	const char* Empty = "";
	carla_rpc_add_blueprint(Server, VehicleBlueprint, &RoleName, &StringType, &Autopilot, 1, nullptr);
	carla_rpc_add_blueprint(Server, WalkerBlueprint, &RoleName, &StringType, &Empty, 1, nullptr);
	CarlaGlue::FUtf8Strings MapName;
	MapName.Add(GetWorld()->GetMapName());
	carla_rpc_set_map(Server, MapName.Pointers()[0], nullptr, 0, nullptr);
	// One level: the only map clients may load.
	carla_rpc_set_available_maps(Server, MapName.Pointers().GetData(), 1);
	UE_LOG(LogCarlaServerGlue, Log, TEXT("0.9 clients on port %d"), BoundRpcPort);
}

void ACarlaServerActor::RegisterLevelActors()
{
	NextLevelActorId = FirstLevelActorId;
	for (TActorIterator<AActor> It(GetWorld()); It; ++It)
	{
		RegisterActor(*It);
	}
	// Actors spawned from now on (game code, spawners) are tagged and known too.
	if (!ActorSpawnedHandle.IsValid())
	{
		ActorSpawnedHandle = GetWorld()->AddOnActorSpawnedHandler(FOnActorSpawned::FDelegate::CreateUObject(this, &ACarlaServerActor::OnActorSpawned));
	}
}

void ACarlaServerActor::OnActorSpawned(AActor* Actor)
{
	if (Server != nullptr && IsValid(Actor))
	{
		RegisterActor(Actor);
	}
}

void ACarlaServerActor::RegisterActor(AActor* Actor)
{
	CarlaGlue::TagActor(*Actor, bLegacySemanticTags);
	const bool bVehicle = Actor == Player || CarlaGlue::IsVehicle(Actor);
	if ((!bVehicle && !CarlaGlue::IsWalker(Actor)) || IdByActor.Contains(Actor))
	{
		return;
	}
	FKnownActor Entry;
	Entry.Actor = Actor;
	Entry.Key = Actor;
	Entry.Id = NextLevelActorId++;
	Entry.Kind = bVehicle ? CARLA_ACTOR_VEHICLE : CARLA_ACTOR_WALKER;
	Entry.LastVelocity = Actor->GetVelocity();
	Known.Add(Entry);
	IdByActor.Add(Actor, Entry.Id);
	Actor->OnDestroyed.AddUniqueDynamic(this, &ACarlaServerActor::OnKnownActorDestroyed);
	if (BoundRpcPort == 0)
	{
		return;
	}
	const char* Key = "role_name";
	const char* Role = Actor == Player ? "hero" : bVehicle ? "autopilot" : "";
	const carla_actor_transform Transform = CarlaGlue::ToActorTransform(Actor->GetActorTransform());
	carla_rpc_add_actor(Server, Entry.Id, bVehicle ? VehicleBlueprint : WalkerBlueprint, &Key, &Role, 1, &Transform);
}

void ACarlaServerActor::OnKnownActorDestroyed(AActor* DestroyedActor)
{
	if (DestroyedActor == Player)
	{
		Player = nullptr; // as garbage collection would null the property
	}
	for (int32 Index = Known.Num() - 1; Index >= 0; --Index)
	{
		if (Known[Index].Key == DestroyedActor && !Known[Index].bSpawnedByClient)
		{
			ForgetKnown(Index);
		}
	}
}

void ACarlaServerActor::ForgetKnown(int32 Index)
{
	const FKnownActor Entry = Known[Index];
	Known.RemoveAt(Index);
	IdByActor.Remove(Entry.Key);
	if (AActor* Actor = Entry.Actor.Get(true))
	{
		Actor->OnDestroyed.RemoveDynamic(this, &ACarlaServerActor::OnKnownActorDestroyed);
	}
	if (BoundRpcPort != 0 && Server != nullptr)
	{
		carla_rpc_remove_actor(Server, Entry.Id); // clients stop listing it
	}
}

void ACarlaServerActor::ResetKnown(bool bDestroyClientSensors)
{
	for (const FKnownActor& Entry : Known)
	{
		AActor* Actor = Entry.Actor.Get();
		if (Actor == nullptr)
		{
			continue;
		}
		Actor->OnDestroyed.RemoveDynamic(this, &ACarlaServerActor::OnKnownActorDestroyed);
		if (bDestroyClientSensors && Entry.bSpawnedByClient)
		{
			Actor->Destroy();
		}
	}
	Known.Reset();
	IdByActor.Reset();
}

bool ACarlaServerActor::IsRpcSynchronous() const
{
	uint32 Clients = 0;
	return bRpcSynchronous && BoundRpcPort != 0 && carla_rpc_client_count(Server, &Clients) == CarlaGlue::Success && Clients > 0;
}

void ACarlaServerActor::ServeRpcAfterFrame(float DeltaSeconds)
{
	if (BoundRpcPort == 0)
	{
		return;
	}
	// The ticks asked for before this frame ran: it is their frame.
	for (const uint64 Id : PendingTicks)
	{
		carla_rpc_answer(Server, Id, GFrameCounter, nullptr);
	}
	PendingTicks.Reset();
	SendEpisodeState(DeltaSeconds);
	HandleRpcRequests(0);
	if (!IsRpcSynchronous())
	{
		return;
	}
	// Synchronous mode (asked for by a client): the next frame waits for a
	// client's tick, as CARLA's game thread does, bounded by the time-out.
	TRACE_CPUPROFILER_EVENT_SCOPE(CarlaWaitForTick);
	const double Deadline = FPlatformTime::Seconds() + TimeOutMs * 0.001;
	while (PendingTicks.Num() == 0 && IsRpcSynchronous() && FPlatformTime::Seconds() < Deadline)
	{
		HandleRpcRequests(10);
	}
}

void ACarlaServerActor::HandleRpcRequests(uint32 WaitMs)
{
	carla_rpc_request Request = {};
	uint32 Wait = WaitMs;
	while (carla_rpc_poll(Server, Wait, &Request) == CarlaGlue::Success)
	{
		Wait = 0;
		HandleRpcRequest(Request);
	}
}

void ACarlaServerActor::HandleRpcRequest(const carla_rpc_request& Request)
{
	const char* Error = nullptr;
	char Message[512] = {};
	AActor* Target = nullptr;
	for (const FKnownActor& Entry : Known)
	{
		Target = Entry.Id == Request.actor_id ? Entry.Actor.Get() : Target; // null once destroyed
	}
	const bool bTargetMissing = Target == nullptr;
	switch (Request.kind)
	{
	case CARLA_RPC_SPAWN_ACTOR:
		Error = SpawnSensorActor(Request);
		break;
	case CARLA_RPC_DESTROY_ACTOR:
	{
		FKnownActor* Entry = FindKnown(Target);
		if (Entry != nullptr && !Entry->bSpawnedByClient)
		{
			Error = "the level's actors cannot be destroyed by a client";
		}
		else if (Entry != nullptr)
		{
			const int32 Index = static_cast<int32>(Entry - Known.GetData());
			IdByActor.Remove(Entry->Key);
			Known.RemoveAt(Index); // the library forgets it when answered
			Target->Destroy();
		}
		break;
	}
	case CARLA_RPC_ACTOR_TRANSFORM:
		if (bTargetMissing)
		{
			Error = "no such actor in the engine";
		}
		else
		{
			Target->SetActorTransform(CarlaGlue::FromActorTransform(Request.transform), false, nullptr, ETeleportType::TeleportPhysics);
		}
		break;
	case CARLA_RPC_ACTOR_VELOCITY:
	{
		UPrimitiveComponent* Body = bTargetMissing ? nullptr : Cast<UPrimitiveComponent>(Target->GetRootComponent());
		if (Body == nullptr || !Body->IsSimulatingPhysics())
		{
			Error = "the actor does not simulate physics";
		}
		else
		{
			Body->SetPhysicsLinearVelocity(CarlaGlue::ToCentimetres(Request.velocity));
		}
		break;
	}
	case CARLA_RPC_VEHICLE_CONTROL:
		if (bTargetMissing || !Target->Implements<UCarlaVehicleControl>())
		{
			Error = "the actor is not a vehicle the engine can drive";
		}
		else
		{
			const carla_vehicle_control& C = Request.control;
			ApplyControl(Target, C.steer, C.throttle, C.brake, C.hand_brake, C.reverse);
		}
		break;
	case CARLA_RPC_EPISODE_SETTINGS:
		Error = ApplyFixedStep(Request.settings);
		if (Error == nullptr)
		{
			bRpcSynchronous = Request.settings.synchronous_mode;
		}
		break;
	case CARLA_RPC_TICK:
		if (Request.expects_answer)
		{
			PendingTicks.Add(Request.request_id); // answered after the next frame
		}
		return;
	case CARLA_RPC_WEATHER:
		break; // accepted; the level's lighting is the project's
	case CARLA_RPC_LOAD_OPENDRIVE:
		Error = "this engine cannot build a world from OpenDRIVE text";
		break;
	case CARLA_RPC_LOAD_EPISODE:
	{
		// The library offers clients this level only; another name here
		// is refused by name. Reloading this level is not supported.
		CarlaGlue::FUtf8Strings Level;
		Level.Add(GetWorld()->GetMapName());
		const char* Own = Level.Pointers()[0];
		if (Request.map_name != nullptr && std::strcmp(Request.map_name, Own) != 0)
		{
			std::snprintf(Message, sizeof Message, "this engine has one level, %s; it cannot load %s", Own, Request.map_name);
			Error = Message;
		}
		else
		{
			Error = "not supported by the Unreal glue";
		}
		break;
	}
	default:
		Error = "not supported by the Unreal glue";
		break;
	}
	if (Request.expects_answer)
	{
		carla_rpc_answer(Server, Request.request_id, 0, Error);
	}
}

const char* ACarlaServerActor::SpawnSensorActor(const carla_rpc_request& Request)
{
	if (Request.sensor_id == 0)
	{
		return "the Unreal glue spawns sensors; vehicles and walkers come from the level";
	}
	AActor* Parent = nullptr;
	for (const FKnownActor& Entry : Known)
	{
		Parent = Entry.Id == Request.parent_id ? Entry.Actor.Get() : Parent;
	}
	if (Request.parent_id != 0 && Parent == nullptr)
	{
		return "the parent is not an actor of the engine";
	}
	const FTransform Relative = CarlaGlue::FromActorTransform(Request.transform);
	const FTransform Spawn = Parent != nullptr ? Relative * Parent->GetActorTransform() : Relative;
	const char* Blueprint = Request.blueprint_id;
	ACarlaSensor* Sensor = nullptr;
	if (StartsWith(Blueprint, "sensor.camera.rgb") || StartsWith(Blueprint, "sensor.camera.depth") ||
		StartsWith(Blueprint, "sensor.camera.semantic_segmentation"))
	{
		const ECarlaCameraOutput Output = StartsWith(Blueprint, "sensor.camera.depth") ? ECarlaCameraOutput::Depth
			: StartsWith(Blueprint, "sensor.camera.semantic") ? ECarlaCameraOutput::SemanticSegmentation
															  : ECarlaCameraOutput::SceneFinal;
		if (Output != ECarlaCameraOutput::SceneFinal && GetPostProcessMaterial(Output) == nullptr)
		{
			return "this level has no post-process material for that camera";
		}
		ASceneCaptureCameraActor* Camera =
			GetWorld()->SpawnActorDeferred<ASceneCaptureCameraActor>(ASceneCaptureCameraActor::StaticClass(), Spawn, Parent);
		Camera->Output = Output;
		Sensor = Camera;
	}
	else if (StartsWith(Blueprint, "sensor.lidar.ray_cast"))
	{
		ARayCastLidar* Lidar = GetWorld()->SpawnActorDeferred<ARayCastLidar>(ARayCastLidar::StaticClass(), Spawn, Parent);
		Lidar->bSemantic = StartsWith(Blueprint, "sensor.lidar.ray_cast_semantic");
		Sensor = Lidar;
	}
	else if (StartsWith(Blueprint, "sensor.other.safe_distance"))
	{
		Sensor = GetWorld()->SpawnActorDeferred<ASafeDistanceSensor>(ASafeDistanceSensor::StaticClass(), Spawn, Parent);
	}
	if (Sensor == nullptr)
	{
		return "the Unreal glue does not produce this sensor";
	}
	CarlaGlue::FAttributes Attributes;
	Attributes.Keys = Request.attribute_keys;
	Attributes.Values = Request.attribute_values;
	Attributes.Count = Request.attribute_count;
	Sensor->ServerActor = this;
	Sensor->ApplyAttributes(Attributes);
	// CARLA's sensor_tick: the sensor's actor ticks (and captures) once
	// that much game time passed; 0 every frame.
	Sensor->SetActorTickInterval(static_cast<float>(Attributes.Number("sensor_tick", 0.0)));
	Sensor->AdoptSensor(Request.sensor_id);
	if (Parent != nullptr)
	{
		Sensor->AttachToActor(Parent, FAttachmentTransformRules::KeepWorldTransform);
	}
	Sensor->FinishSpawning(Spawn);
	if (Sensor->GetSensorId() == 0)
	{
		Sensor->Destroy();
		return "the sensor could not start (see the engine log)";
	}
	FKnownActor Entry;
	Entry.Actor = Sensor;
	Entry.Key = Sensor;
	Entry.Id = Request.actor_id;
	Entry.Kind = CARLA_ACTOR_OTHER;
	Entry.bSpawnedByClient = true;
	Known.Add(Entry);
	IdByActor.Add(Sensor, Entry.Id);
	return nullptr;
}

void ACarlaServerActor::SendEpisodeState(float DeltaSeconds)
{
	// Actors gone without OnDestroyed (a streamed-out level, a sensor
	// destroyed by game code): clients stop listing them.
	for (int32 Index = Known.Num() - 1; Index >= 0; --Index)
	{
		if (Known[Index].Actor.Get() == nullptr)
		{
			ForgetKnown(Index);
		}
	}
	States.Reset();
	for (FKnownActor& Entry : Known)
	{
		// Client sensors follow their parents: the library places them.
		const AActor* Actor = Entry.Actor.Get();
		if (Entry.bSpawnedByClient || Actor == nullptr)
		{
			continue;
		}
		carla_actor_state State = {};
		State.id = Entry.Id;
		State.kind = Entry.Kind;
		State.transform = CarlaGlue::ToActorTransform(Actor->GetActorTransform());
		const FVector Velocity = Actor->GetVelocity();
		State.velocity = CarlaGlue::ToMeters(Velocity);
		if (DeltaSeconds > 0.0f)
		{
			State.acceleration = CarlaGlue::ToMeters((Velocity - Entry.LastVelocity) / DeltaSeconds);
		}
		Entry.LastVelocity = Velocity;
		const UPrimitiveComponent* Body = Cast<UPrimitiveComponent>(Actor->GetRootComponent());
		if (Body != nullptr && Body->IsSimulatingPhysics())
		{
			State.angular_velocity = CarlaGlue::ToDirection(Body->GetPhysicsAngularVelocityInDegrees());
		}
		if (Entry.Kind == CARLA_ACTOR_VEHICLE)
		{
			State.vehicle_control = Entry.Control;
			State.traffic_light_state = 2; // green: no light governs it
		}
		States.Add(State);
	}
	carla_episode_frame Frame = {};
	Frame.frame = GFrameCounter;
	Frame.elapsed_seconds = GetWorld()->GetTimeSeconds();
	Frame.delta_seconds = DeltaSeconds;
	Frame.platform_seconds = FPlatformTime::Seconds();
	carla_rpc_send_episode_state(Server, &Frame, States.GetData(), static_cast<uint32>(States.Num()));
}

const char* ACarlaServerActor::ApplyFixedStep(const carla_episode_settings& Settings)
{
	UPhysicsSettings* Physics = UPhysicsSettings::Get();
	if (!Settings.has_fixed_delta)
	{
		FApp::SetBenchmarking(false); // variable steps, the project's physics
		return nullptr;
	}
	const double Delta = Settings.fixed_delta_seconds;
	const bool bSubstepping = Settings.substepping;
	// What the engine can simulate: CARLA's rule (fixed_delta_seconds <=
	// max_substep_delta_time * max_substeps, at most 16 substeps); CARLA
	// only warns, the glue refuses instead of simulating less time.
	if (!(Delta > 0.0) || Delta > 1.0)
	{
		return "fixed_delta_seconds must be more than 0 and at most 1 s";
	}
	if (bSubstepping && (Settings.max_substeps < 1 || Settings.max_substeps > 16 || !(Settings.max_substep_delta_time > 0.0)))
	{
		return "max_substeps must be 1 to 16 and max_substep_delta_time more than 0";
	}
	if (bSubstepping && Delta > Settings.max_substep_delta_time * Settings.max_substeps + 1e-9)
	{
		return "fixed_delta_seconds is more than max_substep_delta_time * max_substeps: the engine cannot simulate it (raise max_substeps, at most 16, or max_substep_delta_time)";
	}
	// CARLA's fixed time step is the engine's benchmarking mode; physics
	// simulates the whole step (MaxPhysicsDeltaTime would otherwise clamp
	// it: at 0.1 s a car would travel a third of its way), in substeps.
	FApp::SetBenchmarking(true);
	FApp::SetFixedDeltaTime(Delta);
	Physics->bSubstepping = bSubstepping;
	if (bSubstepping)
	{
		Physics->MaxSubstepDeltaTime = static_cast<float>(Settings.max_substep_delta_time);
		Physics->MaxSubsteps = Settings.max_substeps;
	}
	if (Physics->MaxPhysicsDeltaTime < static_cast<float>(Delta))
	{
		Physics->MaxPhysicsDeltaTime = static_cast<float>(Delta);
	}
	return nullptr;
}
