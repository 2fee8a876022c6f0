// precis sagemaker-job-end STATUS: sent by the first host of a multi-host SageMaker job to
// each other host through ssh when mpirun has ended, with the failure's cause on standard
// input, so that every host exits with the job's status (platform/mpi_launcher.h). Not for
// users.
#include <iostream>
#include <iterator>
#include <memory>

#include "command.h"
#include "precis/core/error.h"
#include "precis/platform/mpi_launcher.h"

PRECIS_COMMAND("sagemaker-job-end", "(internal) tell this SageMaker host how the job ended",
               [](CLI::App& app) {
                 auto status = std::make_shared<int>(0);
                 app.add_option("status", *status, "the job's exit status")->required();
                 app.callback([status] {
                   auto paths = precis::platform::sagemaker_paths();
                   precis::check(paths.has_value(), "not a SageMaker host: no /opt/ml/input/config");
                   std::string cause((std::istreambuf_iterator<char>(std::cin)),
                                     std::istreambuf_iterator<char>());
                   precis::platform::record_job_end(*paths, *status, cause);
                 });
               });
