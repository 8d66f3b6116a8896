// A simulated game over the stand-in engine: the glue's actors in a tiny
// level, ticked like Unreal would, serving real clients (tests/unreal_glue.rs).
//
//   SimGame WORLD_PORT FRAMES
//
// The level (centimetres; the test mirrors these numbers):
//   ground    box, top face at z = 0, stencil 7 (roads)
//   wall      box x ∈ [-100, 100] m, y ∈ [8, 8.5] m, z ∈ [0, 5] m, stencil 11 (walls)
//   player    4.5 × 1.8 × 1.5 m box centred at (0, 0, 0.75) m, stencil 10,
//             driven by the 0.8 client's control through ICarlaVehicleControl:
//             a = 4 m/s² · throttle − 8 m/s² · brake, semi-implicit Euler
//   oncoming  the same box, yaw 180, x(t) = max(12, 30 − 8 t) m, y = 0
//   sensors   on the player: safe distance (front 5 m), semantic lidar at
//             +1 m (pitch −5, yaw 90, roll 3), camera (64 × 48, 0.8 id 7001);
//             spawned before the server actor, so they begin play first
//
// Prints `READY key value ...` once every actor has begun play (the server
// actor's BeginPlay waits for the 0.8 client), waits up to 10 s for one
// subscriber per 0.9 stream, runs FRAMES frames (world tick → actors by tick
// group → render flush → GFrameCounter++), ends play and prints `DONE`.
#include "CarlaServerActor.h"
#include "CarlaServerGlue.h"
#include "CarlaVehicleControl.h"
#include "RayCastLidar.h"
#include "SafeDistanceSensor.h"
#include "SceneCaptureCameraActor.h"

#include "Components/BoxComponent.h"
#include "Engine/World.h"
#include "GameFramework/PlayerStart.h"
#include "Modules/ModuleManager.h"
#include "RenderingThread.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace
{
	const float DeltaSeconds = 0.05f;
	const FVector VehicleExtent(225.0, 90.0, 75.0);
	const int32 StencilRoads = 7;
	const int32 StencilVehicles = 10;
	const int32 StencilWalls = 11;

	[[noreturn]] void Fail(const char* What)
	{
		std::fprintf(stderr, "SimGame: %s\n", What);
		std::exit(1);
	}

	UBoxComponent* MakeBody(AActor& Actor, const FVector& Extent, int32 Stencil)
	{
		UBoxComponent* Box = Actor.CreateDefaultSubobject<UBoxComponent>(TEXT("Body"));
		Box->SetBoxExtent(Extent);
		Box->SetCustomDepthStencilValue(Stencil);
		Box->SetRenderCustomDepth(true);
		Box->SetCollisionProfileName(FName(TEXT("BlockAll")));
		return Box;
	}
}

/** Ground or wall: a static box that blocks traces and takes no part in overlaps. */
class ASimStaticBox : public AActor
{
public:
	ASimStaticBox() : Body(MakeBody(*this, FVector::OneVector, 0))
	{
		Body->SetGenerateOverlapEvents(false);
		RootComponent = Body;
	}

	void Configure(const FVector& Extent, int32 Stencil)
	{
		Body->SetBoxExtent(Extent);
		Body->SetCustomDepthStencilValue(Stencil);
	}

private:
	UBoxComponent* Body;
};

/** The player's car: integrates the control the server actor applies. */
class ASimVehicle : public AActor, public ICarlaVehicleControl
{
public:
	ASimVehicle()
	{
		PrimaryActorTick.bCanEverTick = true;
		PrimaryActorTick.TickGroup = TG_PrePhysics;
		RootComponent = MakeBody(*this, VehicleExtent, StencilVehicles);
	}

	void ApplyCarlaControl(float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse) override
	{
		SteerInput = Steer;
		ThrottleInput = Throttle;
		BrakeInput = bHandBrake ? 1.0f : Brake;
		bReverseGear = bReverse;
		++ControlsApplied;
	}

	void Tick(float Dt) override
	{
		AActor::Tick(Dt);
		Speed += (ThrottleInput * 400.0 - BrakeInput * 800.0) * Dt;
		Speed = Speed < 0.0 ? 0.0 : Speed;
		FRotator Rotation = GetActorRotation();
		Rotation.Yaw += SteerInput * 30.0 * Dt;
		const FVector Velocity = Rotation.Vector() * (bReverseGear ? -Speed : Speed);
		SetActorLocationAndRotation(GetActorLocation() + Velocity * Dt, Rotation);
		RootComponent->ComponentVelocity = Velocity;
	}

	int32 ControlsApplied = 0;

private:
	double Speed = 0.0; // cm/s
	float SteerInput = 0.0f;
	float ThrottleInput = 0.0f;
	float BrakeInput = 0.0f;
	bool bReverseGear = false;
};

/** Drives toward the player and stops: x(t) = max(12 m, 30 m − 8 m/s · t). */
class ASimOncomingVehicle : public AActor
{
public:
	ASimOncomingVehicle()
	{
		PrimaryActorTick.bCanEverTick = true;
		PrimaryActorTick.TickGroup = TG_PrePhysics;
		RootComponent = MakeBody(*this, VehicleExtent, StencilVehicles);
	}

	void Tick(float Dt) override
	{
		AActor::Tick(Dt);
		const double X = std::max(1200.0, 3000.0 - 800.0 * GetWorld()->GetTimeSeconds());
		const bool bMoving = X > 1200.0;
		SetActorLocation(FVector(X, 0.0, 75.0));
		RootComponent->ComponentVelocity = FVector(bMoving ? -800.0 : 0.0, 0.0, 0.0);
	}
};

int main(int argc, char** argv)
{
	if (argc != 3 || std::atoi(argv[1]) <= 0 || std::atoi(argv[2]) <= 0)
	{
		std::fprintf(stderr, "usage: %s WORLD_PORT FRAMES\n", argv[0]);
		return 2;
	}
	const int32 WorldPort = std::atoi(argv[1]);
	const int32 Frames = std::atoi(argv[2]);
	GFrameCounter = 500; // an engine that has been running for a while

	const FCarlaServerGlueModule& Module = FModuleManager::LoadModuleChecked<FCarlaServerGlueModule>(TEXT("CarlaServerGlue"));
	if (!Module.IsLibraryLoaded())
	{
		Fail("the module did not load the library from its Binaries/ThirdParty directory");
	}
	{
		UWorld World(TEXT("SimTown"));
		ASimStaticBox* Ground = World.SpawnActor<ASimStaticBox>(FVector(0.0, 0.0, -50.0), FRotator::ZeroRotator);
		Ground->Configure(FVector(100000.0, 100000.0, 50.0), StencilRoads);
		ASimStaticBox* Wall = World.SpawnActor<ASimStaticBox>(FVector(0.0, 825.0, 250.0), FRotator::ZeroRotator);
		Wall->Configure(FVector(10000.0, 25.0, 250.0), StencilWalls);
		World.SpawnActor<APlayerStart>(FVector(0.0, 0.0, 75.0), FRotator::ZeroRotator);
		ASimVehicle* Player = World.SpawnActor<ASimVehicle>(FVector(0.0, 0.0, 75.0), FRotator::ZeroRotator);
		ASimOncomingVehicle* Oncoming = World.SpawnActor<ASimOncomingVehicle>(FVector(3000.0, 0.0, 75.0), FRotator(0.0, 180.0, 0.0));

		ASafeDistanceSensor* Safe = World.SpawnActor<ASafeDistanceSensor>(Player->GetActorLocation(), FRotator::ZeroRotator);
		Safe->SafeDistanceFront = 5.0f;
		ARayCastLidar* Lidar = World.SpawnActor<ARayCastLidar>(FVector(0.0, 0.0, 175.0), FRotator(-5.0, 90.0, 3.0));
		Lidar->bSemantic = true;
		Lidar->Channels = 8;
		Lidar->Range = 30.0f;
		Lidar->PointsPerSecond = 16000;
		Lidar->RotationFrequency = 20.0f;
		Lidar->UpperFov = 5.0f;
		Lidar->LowerFov = -25.0f;
		FActorSpawnParameters CameraParams;
		CameraParams.Name = FName(TEXT("RGBCamera"));
		ASceneCaptureCameraActor* Camera = World.SpawnActor<ASceneCaptureCameraActor>(FVector(230.0, 0.0, 125.0), FRotator::ZeroRotator, CameraParams);
		Camera->ImageSizeX = 64;
		Camera->ImageSizeY = 48;
		Camera->LegacySensorId = 7001;
		for (AActor* Sensor : {static_cast<AActor*>(Safe), static_cast<AActor*>(Lidar), static_cast<AActor*>(Camera)})
		{
			Sensor->SetOwner(Player);
			Sensor->AttachToActor(Player, FAttachmentTransformRules::KeepWorldTransform);
		}

		// Spawned after the sensors, so they begin play first (Unreal does not
		// order a level's BeginPlay calls): they make the server through it.
		ACarlaServerActor* Server = World.SpawnActor<ACarlaServerActor>(FVector::ZeroVector, FRotator::ZeroRotator);
		Server->WorldPort = WorldPort;
		Server->StreamingPort = 0; // any free port (printed below)
		Server->bSynchronousMode = true;
		Server->Player = Player;

		World.StandinBeginPlay(); // the server actor waits for the 0.8 client here
		const uint32 Ids[3] = {Safe->GetSensorId(), Lidar->GetSensorId(), Camera->GetSensorId()};
		if (Server->GetServer() == nullptr || Ids[0] == 0 || Ids[1] == 0 || Ids[2] == 0)
		{
			Fail("the server or a sensor did not start");
		}
		std::printf("READY STREAMING %d SAFE %u LIDAR %u CAMERA %u PLAYER %u ONCOMING %u GROUND %u WALL %u FRAME %llu\n",
			Server->GetBoundStreamingPort(), Ids[0], Ids[1], Ids[2], Player->GetUniqueID(), Oncoming->GetUniqueID(),
			Ground->GetUniqueID(), Wall->GetUniqueID(), GFrameCounter);
		std::fflush(stdout);

		for (int32 Waited = 0;; ++Waited)
		{
			int32 Ready = 0;
			for (const uint32 Id : Ids)
			{
				uint32 Count = 0;
				carla_sensor_subscriber_count(Server->GetServer(), Id, &Count);
				Ready += Count > 0 ? 1 : 0;
			}
			if (Ready == 3)
				break;
			if (Waited >= 10000)
				Fail("not every stream had a subscriber after 10 s");
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		}

		const uint64 RenderCommandsBefore = StandinRenderCommandsRun();
		for (int32 Frame = 0; Frame < Frames; ++Frame)
		{
			World.StandinTick(DeltaSeconds);
			FlushRenderingCommands();
			++GFrameCounter;
		}
		std::printf("RAN %d FRAMES CONTROLS %d RENDER_COMMANDS %llu\n", Frames, Player->ControlsApplied,
			StandinRenderCommandsRun() - RenderCommandsBefore);
		std::fflush(stdout);
		World.StandinEndPlay();
	}
	StandinStopRenderingThread();
	FModuleManager::Get().UnloadModule(TEXT("CarlaServerGlue"));
	std::printf("DONE\n");
	std::fflush(stdout);
	return 0;
}
