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
#include "ProfilingDebugging/CpuProfilerTrace.h"

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
	UE_LOG(LogCarlaServerGlue, Log, TEXT("0.9 clients on port %d"), BoundRpcPort);
}

void ACarlaServerActor::RegisterLevelActors()
{
	uint32 NextId = FirstLevelActorId;
	for (TActorIterator<AActor> It(GetWorld()); It; ++It)
	{
		AActor* Actor = *It;
		const bool bVehicle = Actor == Player || CarlaGlue::IsVehicle(Actor);
		if (!bVehicle && !CarlaGlue::IsWalker(Actor))
		{
			continue;
		}
		FKnownActor Entry;
		Entry.Actor = Actor;
		Entry.Id = NextId++;
		Entry.Kind = bVehicle ? CARLA_ACTOR_VEHICLE : CARLA_ACTOR_WALKER;
		Entry.LastVelocity = Actor->GetVelocity();
		Known.Add(Entry);
		if (BoundRpcPort == 0)
		{
			continue;
		}
		const char* Key = "role_name";
		const char* Role = Actor == Player ? "hero" : bVehicle ? "autopilot" : "";
		const carla_actor_transform Transform = CarlaGlue::ToActorTransform(Actor->GetActorTransform());
		carla_rpc_add_actor(Server, Entry.Id, bVehicle ? VehicleBlueprint : WalkerBlueprint, &Key, &Role, 1, &Transform);
	}
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
	AActor* Target = nullptr;
	for (const FKnownActor& Entry : Known)
	{
		Target = Entry.Id == Request.actor_id ? Entry.Actor : Target;
	}
	const bool bTargetMissing = Target == nullptr || !IsValid(Target);
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
			Target->Destroy();
			Known.RemoveAt(static_cast<int32>(Entry - Known.GetData()));
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
		bRpcSynchronous = Request.settings.synchronous_mode;
		// CARLA's fixed time step: the engine's benchmarking mode.
		FApp::SetBenchmarking(Request.settings.has_fixed_delta);
		if (Request.settings.has_fixed_delta)
		{
			FApp::SetFixedDeltaTime(Request.settings.fixed_delta_seconds);
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
		Parent = Entry.Id == Request.parent_id ? Entry.Actor : Parent;
	}
	if (Request.parent_id != 0 && (Parent == nullptr || !IsValid(Parent)))
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
	Entry.Id = Request.actor_id;
	Entry.Kind = CARLA_ACTOR_OTHER;
	Entry.bSpawnedByClient = true;
	Known.Add(Entry);
	return nullptr;
}

void ACarlaServerActor::SendEpisodeState(float DeltaSeconds)
{
	States.Reset();
	for (FKnownActor& Entry : Known)
	{
		// Client sensors follow their parents: the library places them.
		if (Entry.bSpawnedByClient || !IsValid(Entry.Actor))
		{
			continue;
		}
		carla_actor_state State = {};
		State.id = Entry.Id;
		State.kind = Entry.Kind;
		State.transform = CarlaGlue::ToActorTransform(Entry.Actor->GetActorTransform());
		const FVector Velocity = Entry.Actor->GetVelocity();
		State.velocity = CarlaGlue::ToMeters(Velocity);
		if (DeltaSeconds > 0.0f)
		{
			State.acceleration = CarlaGlue::ToMeters((Velocity - Entry.LastVelocity) / DeltaSeconds);
		}
		Entry.LastVelocity = Velocity;
		const UPrimitiveComponent* Body = Cast<UPrimitiveComponent>(Entry.Actor->GetRootComponent());
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
